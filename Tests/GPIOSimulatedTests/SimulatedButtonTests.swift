import GPIOClient
import GPIOSimulated
import TestSupport
import XCTest

final class SimulatedButtonTests: XCTestCase {
    private func makeGPIO(
        clock: InstantClock,
        chatter: ChatterModel = ChatterModel(edges: 20, span: .milliseconds(5)),
        debounce: Duration = .milliseconds(20)
    ) -> SimulatedGPIO {
        SimulatedGPIO(
            ledCount: 3, debounce: debounce, chatter: chatter,
            monotonicNow: { clock.now }, sleep: { try await clock.sleep($0) }
        )
    }

    private func makeGPIO(manual clock: ManualClock, debounce: Duration = .milliseconds(20)) -> SimulatedGPIO {
        SimulatedGPIO(
            ledCount: 3, debounce: debounce, chatter: ChatterModel(edges: 20, span: .milliseconds(5)),
            monotonicNow: { clock.now }, sleep: { try await clock.sleep($0) }
        )
    }

    /// Shuts the simulator down and returns every event its stream delivered.
    private func allEvents(of gpio: SimulatedGPIO) async -> [ButtonEvent] {
        let stream = gpio.client.buttonEvents
        gpio.shutdown()
        var events: [ButtonEvent] = []
        for await event in stream { events.append(event) }
        return events
    }

    func testChatteringPressIsExactlyOnePressAndOneRelease() async {
        let clock = InstantClock()
        let gpio = makeGPIO(clock: clock)
        let start = clock.now

        let accepted = await gpio.press(hold: .milliseconds(150))

        XCTAssertTrue(accepted)
        let events = await allEvents(of: gpio)
        XCTAssertEqual(events.map(\.kind), [.pressed, .released])
        // Each event carries the time of the last bounce, when the contacts settled.
        XCTAssertEqual(events.first?.at, start + .milliseconds(5))
    }

    func testHoldTimeIsTheDebouncedPressDuration() async throws {
        for hold in [Duration.milliseconds(150), .seconds(3), .milliseconds(25)] {
            let clock = InstantClock()
            let gpio = makeGPIO(clock: clock)

            await gpio.press(hold: hold)

            let events = await allEvents(of: gpio)
            let pressed = try XCTUnwrap(events.first { $0.kind == .pressed })
            let released = try XCTUnwrap(events.first { $0.kind == .released })
            XCTAssertEqual(released.at - pressed.at, hold, "hold \(hold)")
        }
    }

    func testPressShorterThanDebouncePeriodIsNothing() async {
        let clock = InstantClock()
        let gpio = makeGPIO(clock: clock, chatter: .none, debounce: .milliseconds(20))

        await gpio.press(hold: .milliseconds(10))

        XCTAssertFalse(gpio.debouncedLevel)
        let events = await allEvents(of: gpio)
        XCTAssertEqual(events, [])
    }

    func testInjectedGlitchShorterThanPeriodIsNothing() async throws {
        let clock = ManualClock()
        let gpio = makeGPIO(manual: clock)
        let start = clock.now

        gpio.inject(level: true, at: start)
        try await waitUntil("the settle timer sleeps") { clock.sleeperCount == 1 }
        clock.advance(to: start + .milliseconds(5))
        gpio.inject(level: false, at: start + .milliseconds(5))
        try await waitUntil("the stale settle timer is cancelled") { clock.sleeperCount == 0 }
        clock.advance(to: start + .seconds(1))

        XCTAssertFalse(gpio.debouncedLevel)
        let events = await allEvents(of: gpio)
        XCTAssertEqual(events, [])
    }

    func testInjectedEdgeCountsOnlyAfterTheFullPeriod() async throws {
        let clock = ManualClock()
        let gpio = makeGPIO(manual: clock)
        var events = gpio.client.buttonEvents.makeAsyncIterator()
        let start = clock.now

        gpio.inject(level: true, at: start)
        try await waitUntil("the settle timer sleeps") { clock.sleeperCount == 1 }
        clock.advance(to: start + .milliseconds(19))
        XCTAssertFalse(gpio.debouncedLevel, "not stable for the full period yet")
        XCTAssertEqual(clock.sleeperCount, 1)

        clock.advance(to: start + .milliseconds(20))
        let pressed = await events.next()

        XCTAssertEqual(pressed, ButtonEvent(.pressed, at: start))
        XCTAssertTrue(gpio.debouncedLevel)
        XCTAssertTrue(gpio.rawLevel)
        gpio.shutdown()
    }

    func testEveryEdgeRestartsTheWait() async throws {
        let clock = ManualClock()
        let gpio = makeGPIO(manual: clock)
        var events = gpio.client.buttonEvents.makeAsyncIterator()
        let start = clock.now

        gpio.inject(level: true, at: start)
        clock.advance(to: start + .milliseconds(15))
        gpio.inject(level: false, at: start + .milliseconds(15))
        gpio.inject(level: true, at: start + .milliseconds(16))
        try await waitUntil("only the newest settle timer sleeps") {
            clock.sleeperCount == 1 && clock.nextDeadline == start + .milliseconds(36)
        }
        clock.advance(to: start + .milliseconds(35))
        XCTAssertFalse(gpio.debouncedLevel)
        clock.advance(to: start + .milliseconds(36))

        let pressed = await events.next()
        XCTAssertEqual(pressed, ButtonEvent(.pressed, at: start + .milliseconds(16)))
        gpio.shutdown()
    }

    func testSecondPressWhileOneIsRunningIsRejected() async throws {
        let clock = ManualClock()
        let gpio = makeGPIO(manual: clock)
        let first = Task { await gpio.press(hold: .seconds(2)) }
        try await waitUntil("the first press is running") { gpio.isPressing }

        let second = await gpio.press(hold: .milliseconds(150))
        XCTAssertFalse(second, "a held button cannot be pressed again")

        // Let the first press run to its end.
        while gpio.isPressing {
            try await waitUntil("the press sleeps or ends") { clock.sleeperCount > 0 || !gpio.isPressing }
            if let deadline = clock.nextDeadline { clock.advance(to: deadline) }
        }
        let firstAccepted = await first.value
        XCTAssertTrue(firstAccepted)
        let events = await allEvents(of: gpio)
        XCTAssertEqual(events.map(\.kind), [.pressed, .released], "one press, not two interleaved")
    }

    func testPressAfterShutdownIsRejected() async {
        let clock = InstantClock()
        let gpio = makeGPIO(clock: clock)
        gpio.shutdown()

        let accepted = await gpio.press(hold: .milliseconds(150))

        XCTAssertFalse(accepted)
        XCTAssertFalse(gpio.rawLevel)
    }

    func testCancelledPressLetsGoOfTheButton() async throws {
        let clock = ManualClock()
        let gpio = makeGPIO(manual: clock)
        var events = gpio.client.buttonEvents.makeAsyncIterator()
        let press = Task { await gpio.press(hold: .seconds(60)) }

        // Run the press until the button is down (debounced), i.e. into the long hold.
        while !gpio.debouncedLevel {
            try await waitUntil("the press sleeps") { clock.sleeperCount > 0 }
            if let deadline = clock.nextDeadline { clock.advance(to: deadline) }
        }
        let pressed = await events.next()
        XCTAssertEqual(pressed?.kind, .pressed)

        press.cancel()
        try await waitUntil("the press ends and a settle timer waits for the release") {
            !gpio.isPressing && clock.sleeperCount == 1
        }
        XCTAssertFalse(gpio.rawLevel, "the finger left the button")
        clock.advance(by: gpio.debounce)
        let released = await events.next()

        XCTAssertEqual(released?.kind, .released)
        gpio.shutdown()
    }
}
