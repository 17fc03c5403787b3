import GPIOClient
import GPIOSimulated
import TestSupport
import XCTest

/// The simulated board's chip can go away and come back, as a GPIO expander's or a late driver's
/// chip does, so the daemon's handling of that can be tested without hardware.
final class ChipRemovalTests: XCTestCase {
    private func makeGPIO(clock: InstantClock) -> SimulatedGPIO {
        SimulatedGPIO(ledCount: 2, debounce: .zero, monotonicNow: { clock.now }, sleep: { try await clock.sleep($0) })
    }

    func testRemovingTheChipEndsTheButtonStreamWithTheReasonAndDarkensTheLEDs() async throws {
        let gpio = makeGPIO(clock: InstantClock())
        let client = gpio.client
        try client.setLED(1, true)
        XCTAssertNil(client.failure(), "no failure while the chip is there")

        gpio.removeChip()
        var events = client.buttonEvents.makeAsyncIterator()
        let end = await events.next()
        XCTAssertNil(end, "the button stream finishes")
        XCTAssertEqual(client.failure()?.reason, "the chip was removed")
        XCTAssertEqual(gpio.ledLevels, [false, false], "released lines revert")
        XCTAssertThrowsError(try client.setLED(0, true))
        XCTAssertThrowsError(try gpio.connect())
        let pressed = await gpio.press(hold: .milliseconds(100))
        XCTAssertFalse(pressed, "a chip that is gone has no button")
    }

    func testARestoredChipConnectsWithAFreshButtonStream() async throws {
        let clock = InstantClock()
        let gpio = makeGPIO(clock: clock)
        gpio.removeChip()
        gpio.restoreChip()
        let client = try gpio.connect()
        XCTAssertNil(client.failure())
        try client.setLED(0, true)
        XCTAssertEqual(gpio.ledLevels, [true, false])
        gpio.inject(level: true, at: clock.now)
        var events = client.buttonEvents.makeAsyncIterator()
        let event = await events.next()
        XCTAssertEqual(event?.kind, .pressed)
    }

    func testAWatchSeesRemovalAndRestoration() async {
        let gpio = makeGPIO(clock: InstantClock())
        let watch = gpio.watchChip()
        var changes = watch.changes.makeAsyncIterator()
        gpio.removeChip()
        let removed = await changes.next()
        XCTAssertEqual(removed, SimulatedGPIO.chipName)
        gpio.restoreChip()
        let restored = await changes.next()
        XCTAssertEqual(restored, SimulatedGPIO.chipName)
        watch.stop()
        let end = await changes.next()
        XCTAssertNil(end)
    }
}
