public import ComposableCore
import CustomDump
import XCTest

/// An exhaustive test harness for a reducer, in the style of TCA's `TestStore`.
///
/// Every state change must be asserted (`send`/`receive` closures describe the expected mutation and
/// a mismatch fails with a diff), every action an effect sends must be received in order, and the test
/// must end with no effect still running (`finish()` checks; `deinit` reports what was left over).
@MainActor
public final class TestStore<R: Reducer> where R.State: Equatable, R.Action: Equatable {
    public private(set) var state: R.State
    private let reducer: R
    private var received: [R.Action] = []
    private lazy var runner = EffectRunner<R.Action> { [weak self] action in self?.received.append(action) }
    /// How long `receive` waits for an effect to deliver, in real time, before failing.
    public var timeout: Duration

    public init(initialState: R.State, reducer: R, timeout: Duration = .seconds(2)) {
        self.state = initialState
        self.reducer = reducer
        self.timeout = timeout
        UnexpectedCall.failTests()
    }

    /// Sends an action and asserts exactly how the state changes. The returned task covers the
    /// effects this action started (cancel it to end a long-living effect the way a service does).
    @discardableResult
    public func send(
        _ action: R.Action,
        assert updateExpected: ((inout R.State) throws -> Void)? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) -> StoreTask {
        if !received.isEmpty {
            XCTFail("Must handle \(received.count) received action(s) before sending \(action):\n"
                    + received.map { "  \($0)" }.joined(separator: "\n"), file: file, line: line)
        }
        return reduce(action, updateExpected, file: file, line: line)
    }

    /// Waits for the next action an effect sends, checks it, and asserts how the state changes.
    public func receive(
        _ expected: R.Action,
        assert updateExpected: ((inout R.State) throws -> Void)? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) async {
        guard await waitForReceived(file: file, line: line) else {
            XCTFail("Expected to receive \(expected), but no action was received in time.", file: file, line: line)
            return
        }
        let action = received.removeFirst()
        if action != expected {
            XCTFail("Received an unexpected action:\n"
                    + (diff(expected, action, format: .proportional).map { $0 } ?? "\(action)")
                    + "\n(− expected, + received)", file: file, line: line)
        }
        reduce(action, updateExpected, file: file, line: line)
    }

    /// Asserts that every effect has finished and every received action was handled.
    public func finish(file: StaticString = #filePath, line: UInt = #line) async {
        let deadline = ContinuousClock.now + timeout
        while runner.inFlightCount > 0, received.isEmpty, ContinuousClock.now < deadline {
            await Task.yield()
        }
        if !received.isEmpty {
            XCTFail("\(received.count) received action(s) were not asserted:\n"
                    + received.map { "  \($0)" }.joined(separator: "\n"), file: file, line: line)
            received.removeAll()
        }
        if runner.inFlightCount > 0 {
            XCTFail("\(runner.inFlightCount) effect(s) still running at the end of the test "
                    + "(cancellable ids: \(runner.inFlightIDs.map(\.name).sorted())). "
                    + "Cancel them, or send the action that stops them.", file: file, line: line)
            runner.cancelAll()
        }
    }

    /// Lets running effects deliver what they have ready, then asserts none did: nothing happens
    /// before its time (a wake-up a second early would show up here).
    public func expectNoAction(file: StaticString = #filePath, line: UInt = #line) async {
        await Task.megaYield()
        if !received.isEmpty {
            XCTFail("Expected no action yet, but received:\n" + received.map { "  \($0)" }.joined(separator: "\n"),
                    file: file, line: line)
        }
    }

    /// Drops received actions without asserting them, for tests that focus elsewhere.
    public func skipReceivedActions() async {
        await Task.megaYield()
        received.removeAll()
    }

    @discardableResult
    private func reduce(
        _ action: R.Action, _ updateExpected: ((inout R.State) throws -> Void)?,
        file: StaticString, line: UInt
    ) -> StoreTask {
        var expected = state
        let effect = reducer.reduce(into: &state, action: action)
        let started = runner.start(effect)
        // Depth first, as `Store` processes them: what this action sends synchronously comes
        // before anything already waiting.
        received.insert(contentsOf: started.immediate, at: 0)
        do {
            try updateExpected?(&expected)
        } catch {
            XCTFail("Threw in the assertion closure: \(error)", file: file, line: line)
        }
        if expected != state {
            let difference = diff(expected, state, format: .proportional) ?? "(no printable difference)"
            XCTFail("State after \(action) differs from the expectation:\n\(difference)\n(− expected, + actual)",
                    file: file, line: line)
        }
        return StoreTask(tasks: started.tasks)
    }

    private func waitForReceived(file: StaticString, line: UInt) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while received.isEmpty {
            if ContinuousClock.now >= deadline { return false }
            await Task.megaYield()
            if received.isEmpty, runner.inFlightCount > 0 {
                // Effects may be waiting on real work (a thread, a file); give them a moment.
                try? await Task.sleep(for: .milliseconds(1))
            } else if received.isEmpty {
                return false
            }
        }
        return true
    }

    /// Ends the test: finishes and checks.
    isolated deinit {
        if !received.isEmpty {
            XCTFail("TestStore ended with \(received.count) unasserted received action(s): \(received)")
        }
        if runner.inFlightCount > 0 {
            XCTFail("TestStore ended with \(runner.inFlightCount) effect(s) still running "
                    + "(ids: \(runner.inFlightIDs.map(\.name).sorted())); call finish() or cancel them.")
            runner.cancelAll()
        }
    }
}

extension Task where Success == Never, Failure == Never {
    /// Yields many times so that work enqueued on a serial executor gets to run.
    public static func megaYield(count: Int = 20) async {
        for _ in 0..<count { await Task<Never, Never>.yield() }
    }
}

extension UnexpectedCall {
    /// Makes every unexpected call to a dependency's test value fail the running test.
    public static func failTests() {
        install { message in XCTFail(message) }
    }
}
