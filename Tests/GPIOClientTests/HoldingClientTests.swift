import GPIOClient
import GPIOSimulated
import XCTest

/// `GPIOClient.holding` over the simulated board, whose chip can be removed and restored: the lines
/// requested at start-up are used first, lines lost with their chip are requested again, LEDs go
/// to the lines held now, and a release is not a lost chip.
@MainActor
final class HoldingClientTests: XCTestCase {
    /// A board whose debounce settles at once.
    private func board() -> SimulatedGPIO {
        SimulatedGPIO(ledCount: 2, debounce: .zero, chatter: .none, monotonicNow: { .seconds(1) }, sleep: { _ in await Task.yield() })
    }

    /// Lights only LED `led` through `client` and sees a press arrive on `events`.
    private func assertLinesWork(_ client: GPIOClient, _ board: SimulatedGPIO, led: Int,
                                 events: inout AsyncStream<ButtonEvent>.AsyncIterator,
                                 file: StaticString = #filePath, line: UInt = #line) async throws {
        for index in 0..<board.ledCount { try client.setLED(index, index == led) }
        XCTAssertEqual(board.ledLevels, (0..<board.ledCount).map { $0 == led }, file: file, line: line)
        board.inject(level: !board.debouncedLevel, at: .seconds(1))
        let event = await events.next(isolation: #isolation)
        XCTAssertEqual(event?.kind, board.debouncedLevel ? .pressed : .released, "events flow from the current chip",
                       file: file, line: line)
    }

    func testTheLinesRequestedAtStartUpAreUsedFirstThenRequestedAgainAfterTheChipCameBack() async throws {
        let board = board()
        let client = GPIOClient.holding(.simulated(board), initial: board.client)
        XCTAssertEqual(client.chipDescription, "simulated chip")
        var events = try client.connect().makeAsyncIterator()
        try await assertLinesWork(client, board, led: 0, events: &events)

        board.removeChip()
        let end = await events.next(isolation: #isolation)
        XCTAssertNil(end, "the button stream ends with the chip")
        XCTAssertEqual(client.failure()?.reason, "the chip was removed")
        XCTAssertTrue(client.onlyAChipChangeHelps(try XCTUnwrap(client.failure())))
        XCTAssertEqual(board.ledLevels, [false, false], "a removed chip's lines revert")
        XCTAssertThrowsError(try client.setLED(0, true)) { error in
            XCTAssertEqual((error as? GPIOError)?.reason, "the chip was removed", "\(error)")
        }
        XCTAssertThrowsError(try client.connect(), "no chip, no lines")

        board.restoreChip()
        events = try client.connect().makeAsyncIterator()
        XCTAssertNil(client.failure())
        try await assertLinesWork(client, board, led: 1, events: &events)
    }

    func testAChipMissingAtStartIsRequestedOnceItIsThere() async throws {
        let board = board()
        board.removeChip()
        let client = GPIOClient.holding(.simulated(board))
        XCTAssertThrowsError(try client.setLED(0, true)) { error in
            XCTAssertEqual((error as? GPIOError)?.reason, "waiting for GPIO simulated chip", "\(error)")
        }
        XCTAssertThrowsError(try client.connect())

        board.restoreChip()
        var events = try client.connect().makeAsyncIterator()
        try await assertLinesWork(client, board, led: 0, events: &events)
    }

    func testAChipChangeIsSeenOnTheWatch() async throws {
        let board = board()
        let client = GPIOClient.holding(.simulated(board), initial: board.client)
        let watch = try XCTUnwrap(client.chipChanges())
        var changes = watch.changes.makeAsyncIterator()
        board.removeChip()
        let removed = await changes.next(isolation: #isolation)
        XCTAssertEqual(removed, SimulatedGPIO.chipName)
        board.restoreChip()
        let restored = await changes.next(isolation: #isolation)
        XCTAssertEqual(restored, SimulatedGPIO.chipName)
        watch.stop()
        let end = await changes.next(isolation: #isolation)
        XCTAssertNil(end)
    }

    func testReleasingSwitchesTheLEDsOffEndsTheStreamAndIsNoLostChip() async throws {
        let board = board()
        let client = GPIOClient.holding(.simulated(board), initial: board.client)
        var events = try client.connect().makeAsyncIterator()
        try client.setLED(0, true)
        client.release()
        let end = await events.next(isolation: #isolation)
        XCTAssertNil(end)
        XCTAssertTrue(board.isShutDown)
        XCTAssertEqual(board.ledLevels, [false, false])
        XCTAssertNil(client.failure(), "a shutdown is not a lost chip")
        XCTAssertThrowsError(try client.setLED(0, true)) { error in
            XCTAssertEqual((error as? GPIOError)?.reason, "waiting for GPIO simulated chip", "\(error)")
        }
        client.release()  // idempotent
    }
}
