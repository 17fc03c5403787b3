import CheckInModels
import CheckInStoreClient
import Clocks
import ComposableCore
import ControlProtocol
import DeviceClock
import DeviceConfig
import DeviceFeature
@testable import DeviceRuntime
import GPIOClient
import GPIOSimulated
import Glibc
import LEDLanguage
import Synchronization
import TestSupport
import XCTest

/// The production graph over test clients: every dependency fails the test if it is called, except
/// the ones this device uses, which are TestSupport's in-memory store, the simulated board and a
/// test clock. A press travels from the board through the feature to the LED lines, and a
/// `lifesignalctl` request travels over the real control socket through the control handler.
@MainActor
final class TestClientGraphTests: XCTestCase {
    static let start = ReducerTestCase.start
    var device: RunningDevice?

    override func tearDown() async throws {
        await device?.stop()
        device = nil
    }

    func testAPressReachesTheLEDsAndControlRequestsAreAnsweredOverTheSocket() async throws {
        UnexpectedCall.failTests()
        let directory = try TemporaryDirectory(prefix: "lifesignal-graph")
        var configuration = DeviceConfiguration.forTests(in: directory)
        configuration.acknowledgement = .seconds(1)
        let graph = TestClientGraph(start: Self.start)
        let (clock, checkIns, board) = (graph.clock, graph.checkIns, graph.board)

        let device = await RunningDevice(configuration, dependencies: graph.dependencies, simulator: board)
        self.device = device
        try await device.start()
        let language = configuration.ledLanguage
        func lit(_ names: String...) -> [Bool] { language.leds.map { names.contains($0.name) } }
        XCTAssertEqual(device.state.indicator, .neverCheckedIn)
        try await waitUntil("the LEDs say 'never checked in'") { board.ledLevels == lit("amber") }

        // The press: debounced on the board, a check-in in the store, the acknowledgement on the lines.
        let pressed = await board.press(hold: .milliseconds(200))
        XCTAssertTrue(pressed)
        try await waitUntil("the press is stored") { checkIns.records.count == 1 }
        XCTAssertEqual(checkIns.records.first?.source, .button)
        try await waitUntil("the LEDs acknowledge it") { board.ledLevels == lit("green") && device.state.indicator == .acknowledged }
        // The blink's next edge comes on the device's clock, not before.
        await Task.megaYield()
        await clock.advance(by: .milliseconds(199))
        await Task.megaYield()
        XCTAssertEqual(board.ledLevels, lit("green"))
        await clock.advance(by: .milliseconds(1))
        try await waitUntil("the blink's edge") { board.ledLevels == lit() }
        await clock.advance(by: .milliseconds(800))
        try await waitUntil("the LEDs say 'checked in'") { board.ledLevels == lit("green") && device.state.indicator == .checkedIn }

        // `lifesignalctl status` and `check-in`, over the socket, answered from the feature and the fake store.
        let status = try await device.status()
        XCTAssertEqual(status.indicator, "checked_in")
        XCTAssertEqual(status.lastCheckIn?.source, "button")
        XCTAssertEqual(status.leds.map(\.on), [true, false, false])
        XCTAssertEqual(status.gpioBackend, "simulated")
        let answered = try await device.checkIn()
        XCTAssertEqual(answered.source, "cli")
        XCTAssertEqual(checkIns.records.map(\.id.description), [answered.id, status.lastCheckIn?.id ?? ""])
        let historyAnswer = try await device.request(ControlRequest(.history, limit: 5)).history
        let history = try XCTUnwrap(historyAnswer)
        XCTAssertEqual(history.map(\.source), ["cli", "button"])
        await device.stop()
        XCTAssertEqual(board.ledLevels, lit(), "the LEDs go off when the device stops")
    }

    /// While a check-in is being written the device's log waits (working its lines out on the
    /// thread that reduces actions would stand in front of the write), and comes out complete and
    /// in order once the store has answered. Here the board's chip goes away during the write: a
    /// fault a person must be able to read in the journal, held for the length of the write only.
    func testLinesOfActionsDuringAWriteComeOutInOrderOnceTheStoreHasAnswered() async throws {
        let directory = try TemporaryDirectory(prefix: "lifesignal-ack-first")
        let (device, checkIns, board) = try await startedWithAPressBeingWritten(in: directory)
        board.removeChip()
        try await waitUntil("the lost chip is reduced") { device.state.conditions.contains { $0.kind == .gpioUnavailable } }
        XCTAssertFalse(device.log.contains("GPIO simulated chip lost"),
                       "the loss's line waits for the write: \(device.log.all.joined(separator: "\n"))")

        try await waitUntil("the held write is let through") { checkIns.releaseHeldWrite() }
        try await waitUntil("the check-in is stored and logged") { device.log.contains("check-in stored") }
        let lines = device.log.all
        let lost = try XCTUnwrap(lines.firstIndex { $0.contains("GPIO simulated chip lost") }, lines.joined(separator: "\n"))
        let stored = try XCTUnwrap(lines.firstIndex { $0.contains("check-in stored") })
        XCTAssertLessThan(lost, stored, "the lines come out in the order of their actions")
        XCTAssertFalse(device.state.acknowledgementPending)
    }

    /// SIGTERM (systemd's stop) while a press's check-in is being written: the daemon stops taking
    /// requests, but the device waits for the write, and the tree ends only once the check-in is
    /// stored; the LEDs go off after that, never before.
    func testSIGTERMDuringACheckInsWriteStopsOnlyOnceTheCheckInIsStored() async throws {
        let directory = try TemporaryDirectory(prefix: "lifesignal-stop-mid-write")
        let (device, checkIns, board) = try await startedWithAPressBeingWritten(in: directory)
        kill(getpid(), SIGTERM)  // to the process, as systemd sends it; the tree's signal watcher takes it
        try await waitUntil("the shutdown has reached the device") {
            device.actions.contains { if case .stopping = $0 { true } else { false } }
        }
        XCTAssertTrue(device.log.contains("stopping: SIGTERM"), device.log.all.joined(separator: "\n"))
        let answer = try? await device.request(ControlRequest(.status))
        XCTAssertNil(answer, "the control socket closed first: nothing new arrives")
        XCTAssertTrue(device.state.acknowledgementPending)
        XCTAssertFalse(device.hasStopped, "the tree waits for the write")
        XCTAssertEqual(checkIns.records.count, 0)

        try await waitUntil("the held write is let through") { checkIns.releaseHeldWrite() }
        await device.stopped()
        XCTAssertEqual(checkIns.records.map(\.source), [.button], "the press's check-in is stored")
        XCTAssertTrue(device.log.contains("check-in stored"))
        XCTAssertEqual(board.ledLevels, [false, false, false], "the LEDs go off once the device has stopped")
    }

    /// A device on the test graph (its socket in `directory`, which the caller keeps), started,
    /// with a press's check-in held in the store's write.
    private func startedWithAPressBeingWritten(
        in directory: TemporaryDirectory
    ) async throws -> (RunningDevice, FakeCheckInStore, SimulatedGPIO) {
        UnexpectedCall.failTests()
        let graph = TestClientGraph(start: Self.start)
        let (checkIns, board) = (graph.checkIns, graph.board)
        let device = await RunningDevice(.forTests(in: directory), dependencies: graph.dependencies, simulator: board)
        self.device = device
        try await device.start()

        checkIns.holdWrites()
        let pressed = await board.press(hold: .milliseconds(200))
        XCTAssertTrue(pressed)
        try await waitUntil("the press's write is under way") { device.state.acknowledgementPending }
        return (device, checkIns, board)
    }
}
