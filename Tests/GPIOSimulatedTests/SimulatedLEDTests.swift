import GPIOClient
import GPIOSimulated
import Synchronization
import TestSupport
import XCTest

final class SimulatedLEDTests: XCTestCase {
    private func makeGPIO(clock: InstantClock, ledCount: Int = 3, history: Int = 4096) -> SimulatedGPIO {
        SimulatedGPIO(
            ledCount: ledCount, ledHistoryCapacity: history,
            monotonicNow: { clock.now }, sleep: { try await clock.sleep($0) }
        )
    }

    func testChangesAreRecordedInOrderWithTheirTimes() throws {
        let clock = InstantClock()
        let gpio = makeGPIO(clock: clock)
        let client = gpio.client
        let t0 = clock.now

        try client.setLED(0, true)
        clock.advance(by: .seconds(1))
        try client.setLED(2, true)
        clock.advance(by: .seconds(1))
        try client.setLED(0, false)
        try client.setLED(0, false)  // no change: not recorded

        XCTAssertEqual(gpio.ledChanges(), [
            LEDChange(sequence: 1, index: 0, on: true, at: t0),
            LEDChange(sequence: 2, index: 2, on: true, at: t0 + .seconds(1)),
            LEDChange(sequence: 3, index: 0, on: false, at: t0 + .seconds(2)),
        ])
        XCTAssertEqual(gpio.ledChanges(since: t0 + .seconds(1)).map(\.sequence), [2, 3])
        XCTAssertEqual(gpio.ledLevels, [false, false, true])
    }

    func testRecordKeepsOnlyTheMostRecentChanges() throws {
        let clock = InstantClock()
        let gpio = makeGPIO(clock: clock, ledCount: 1, history: 3)

        for step in 0..<5 {
            try gpio.setLED(0, on: step.isMultiple(of: 2))
            clock.advance(by: .milliseconds(100))
        }

        XCTAssertEqual(gpio.ledChanges().map(\.sequence), [3, 4, 5])
        XCTAssertEqual(gpio.ledChanges().map(\.on), [true, false, true])
    }

    func testUnknownLEDIsAnError() {
        let gpio = makeGPIO(clock: InstantClock(), ledCount: 2)

        XCTAssertThrowsError(try gpio.client.setLED(2, true)) { error in
            XCTAssertTrue("\(error)".contains("simulated LED 2"), "\(error)")
        }
        XCTAssertEqual(gpio.ledChanges(), [])
    }

    func testShutdownSwitchesLEDsOffAndFinishesTheButtonStream() async throws {
        let clock = InstantClock()
        let gpio = makeGPIO(clock: clock)
        try gpio.setLED(0, on: true)
        try gpio.setLED(1, on: true)
        clock.advance(by: .seconds(5))
        let shutdownTime = clock.now

        gpio.client.shutdown()

        XCTAssertEqual(gpio.ledLevels, [false, false, false])
        let offs = gpio.ledChanges(since: shutdownTime)
        XCTAssertEqual(Set(offs.map(\.index)), [0, 1])
        XCTAssertTrue(offs.allSatisfy { !$0.on && $0.at == shutdownTime })
        var events: [ButtonEvent] = []
        for await event in gpio.client.buttonEvents { events.append(event) }  // ends: finished
        XCTAssertEqual(events, [])
        XCTAssertThrowsError(try gpio.setLED(0, on: true), "released lines cannot be driven")
        gpio.shutdown()  // idempotent
        XCTAssertEqual(gpio.ledChanges().count, 4)
    }

    func testObserversSeeEveryChangeUntilCancelled() throws {
        let clock = InstantClock()
        let gpio = makeGPIO(clock: clock)
        let seen = Mutex<[(LEDChange, [Bool])]>([])
        let observation = gpio.observeLEDs { change, levels in seen.withLock { $0.append((change, levels)) } }

        try gpio.setLED(1, on: true)
        try gpio.setLED(0, on: true)
        observation.cancel()
        try gpio.setLED(1, on: false)

        let observed = seen.withLock { $0 }
        XCTAssertEqual(observed.map(\.0), Array(gpio.ledChanges().prefix(2)))
        XCTAssertEqual(observed.map(\.1), [[false, true, false], [true, true, false]])
    }
}
