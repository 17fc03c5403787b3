@testable import DeviceRuntime
import GPIOClient
import GPIOSimulated
import Logging
import XCTest

/// The GPIO supervisor on the simulated board, whose chip can be removed and restored: a chip
/// that goes away is reported and waited for, and the lines are requested again when it is back.
@MainActor
final class GPIOSupervisorTests: XCTestCase {
    private let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    /// A board whose debounce settles at once (its sleeps return immediately).
    private func board() -> SimulatedGPIO {
        SimulatedGPIO(ledCount: 2, debounce: .zero, monotonicNow: { .seconds(1) }, sleep: { _ in await Task.yield() })
    }

    /// Starts `supervisor`, returning the streams of its button events and condition changes.
    private func start(_ supervisor: GPIOSupervisor)
        -> (buttons: AsyncStream<ButtonEvent>.AsyncIterator, conditions: AsyncStream<GPIOSupervisor.Condition>.AsyncIterator) {
        let (buttons, buttonSink) = AsyncStream.makeStream(of: ButtonEvent.self)
        let (conditions, conditionSink) = AsyncStream.makeStream(of: GPIOSupervisor.Condition.self)
        supervisor.start(onButton: { buttonSink.yield($0) }, changed: { conditionSink.yield($0) })
        return (buttons.makeAsyncIterator(), conditions.makeAsyncIterator())
    }

    /// Lights only LED `led` through the supervisor and sees a press arrive from the current chip.
    private func assertLinesWork(_ supervisor: GPIOSupervisor, _ board: SimulatedGPIO, led: Int,
                                 buttons: inout AsyncStream<ButtonEvent>.AsyncIterator) async throws {
        for index in 0..<board.ledCount { try supervisor.client.setLED(index, index == led) }
        XCTAssertEqual(board.ledLevels, (0..<board.ledCount).map { $0 == led })
        board.inject(level: !board.debouncedLevel, at: .seconds(1))
        let event = await buttons.next(isolation: #isolation)
        XCTAssertEqual(event?.kind, board.debouncedLevel ? .pressed : .released, "events flow from the current chip")
    }

    func testAChipRemovedWhileRunningIsReportedAndItsLinesAreRequestedAgainWhenItIsBack() async throws {
        let board = board()
        let supervisor = GPIOSupervisor(initial: .success(board.client), connector: .simulated(board),
                                        logger: logger, sleep: { _ in })
        var (buttons, conditions) = start(supervisor)
        try await assertLinesWork(supervisor, board, led: 0, buttons: &buttons)

        board.removeChip()
        guard case let .waiting(failure)? = await conditions.next(isolation: #isolation) else { return XCTFail("no fault reported") }
        XCTAssertEqual(failure.reason, "the chip was removed")
        XCTAssertEqual(supervisor.condition, .waiting(failure))
        XCTAssertEqual(board.ledLevels, [false, false], "a removed chip's lines revert")
        XCTAssertThrowsError(try supervisor.client.setLED(0, true)) { error in
            let reason = (error as? GPIOError)?.reason ?? ""
            XCTAssertTrue(reason.contains("waiting for GPIO simulated chip"), reason)
        }

        board.restoreChip()
        let back = await conditions.next(isolation: #isolation)
        XCTAssertEqual(back, .connected)
        try await assertLinesWork(supervisor, board, led: 1, buttons: &buttons)
        supervisor.stop()
    }

    func testAChipMissingAtStartIsWaitedForThenUsed() async throws {
        let board = board()
        board.removeChip()
        let initial = Result { () throws(GPIOError) in try board.connect() }
        guard case let .failure(missing) = initial else { return XCTFail("a removed chip must not connect") }
        let supervisor = GPIOSupervisor(initial: initial, connector: .simulated(board), logger: logger, sleep: { _ in })
        XCTAssertEqual(supervisor.condition, .waiting(missing))
        var (buttons, conditions) = start(supervisor)
        XCTAssertThrowsError(try supervisor.client.setLED(0, true))

        board.restoreChip()
        let connected = await conditions.next(isolation: #isolation)
        XCTAssertEqual(connected, .connected)
        try await assertLinesWork(supervisor, board, led: 0, buttons: &buttons)
        supervisor.stop()
    }

    func testStoppingReleasesTheLinesAndReportsNoFault() async throws {
        let board = board()
        let supervisor = GPIOSupervisor(initial: .success(board.client), connector: .simulated(board),
                                        logger: logger, sleep: { _ in })
        let (_, conditions) = start(supervisor)
        try supervisor.client.setLED(0, true)
        supervisor.stop()
        for _ in 0..<20 { await Task.yield() }  // let the loop see the end of its stream
        XCTAssertTrue(board.isShutDown)
        XCTAssertEqual(board.ledLevels, [false, false])
        XCTAssertEqual(supervisor.condition, .connected, "a shutdown is not a lost chip")
        _ = conditions  // no change was reported: the stream simply has nothing
    }
}
