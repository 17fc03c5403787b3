import ComposableCore
import DeviceConfig
import DeviceFeature
@testable import DeviceRuntime
import TestSupport
import XCTest

/// While a check-in is being written the device's log waits (working its lines out on the thread
/// that reduces actions would stand in front of the write), and comes out complete and in order
/// once the store has answered. Here the board's chip goes away during the write: a fault a person
/// must be able to read in the journal, held for the length of the write and no longer.
@MainActor
final class AcknowledgementFirstTests: XCTestCase {
    var device: RunningDevice?

    override func tearDown() async throws {
        await device?.stop()
        device = nil
    }

    func testLinesOfActionsDuringAWriteComeOutInOrderOnceTheStoreHasAnswered() async throws {
        UnexpectedCall.failTests()
        let directory = try TemporaryDirectory(prefix: "lifesignal-ack-first")
        let graph = TestClientGraph(start: ReducerTestCase.start)
        let (checkIns, board) = (graph.checkIns, graph.board)
        let device = await RunningDevice(.forTests(in: directory), dependencies: graph.dependencies, simulator: board)
        self.device = device
        try await device.start()

        checkIns.holdWrites()
        let pressed = await board.press(hold: .milliseconds(200))
        XCTAssertTrue(pressed)
        try await waitUntil("the press's write is under way") { device.state.acknowledgementPending }
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
}
