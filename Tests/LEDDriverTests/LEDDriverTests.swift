import GPIOClient
import LEDDriver
import LEDLanguage
import Synchronization
import TestSupport
import XCTest

/// The LED driver plays the indicator's pattern on the lines: it writes a line only when its level
/// changes, sleeps exactly until the next edge (a steady pattern: not at all), reports a failing
/// line once per reason, and writes everything afresh once the lines are back.
@MainActor
final class LEDDriverTests: XCTestCase {
    /// The lines: every write, and a failure to throw while the "chip" is gone.
    final class Lines: Sendable {
        let writes = Mutex<[(index: Int, on: Bool)]>([])
        let failure = Mutex<GPIOError?>(nil)

        func set(_ index: Int, _ on: Bool) throws(GPIOError) {
            if let failure = failure.withLock({ $0 }) { throw failure }
            writes.withLock { $0.append((index, on)) }
        }

        /// The writes since the last call, as "green on" / "red off".
        func take(_ language: LEDLanguage) -> [String] {
            writes.withLock { writes in
                defer { writes = [] }
                return writes.map { "\(language.leds[$0.index].name) \($0.on ? "on" : "off")" }
            }
        }
    }

    let language = LEDLanguage.standard
    let lines = Lines()
    let clock = ManualClock()
    var reports: [String] = []

    private func makeDriver() -> LEDDriver {
        LEDDriver(language: language, setLED: { [lines] index, on throws(GPIOError) in try lines.set(index, on) },
                  monotonicNow: { [clock] in clock.now }, sleep: { [clock] in try await clock.sleep($0) },
                  report: { [weak self] error in self?.reports.append(error.reason) })
    }

    func testALineIsWrittenOnlyWhenItsLevelChanges() {
        let driver = makeDriver()
        driver.show(.checkedIn)
        XCTAssertEqual(lines.take(language), ["green on"], "the LEDs already off are not written")
        driver.show(.checkedIn)
        XCTAssertEqual(lines.take(language), [], "the same indicator again changes nothing")
        driver.show(.reminder)
        XCTAssertEqual(lines.take(language), ["green off", "amber on"])
        XCTAssertEqual(driver.levels, [false, true, false])
        XCTAssertEqual(driver.indicator, .reminder)
    }

    func testASteadyPatternSleepsNotAtAllAndABlinkWakesOnlyAtItsEdges() async throws {
        let driver = makeDriver()
        driver.show(.checkedIn)
        await Task.megaYield()
        XCTAssertEqual(clock.sleeperCount, 0, "a steady pattern needs no wake-up")
        XCTAssertEqual(lines.take(language), ["green on"])

        driver.show(.neverCheckedIn)  // amber: 500 ms on, 1500 ms off
        XCTAssertEqual(lines.take(language), ["green off", "amber on"])
        try await waitUntil("the driver sleeps until the next edge") { self.clock.sleeperCount == 1 }
        XCTAssertEqual(clock.nextDeadline, clock.now + .milliseconds(500))
        clock.advance(by: .milliseconds(499))
        await Task.megaYield()
        XCTAssertEqual(lines.take(language), [])
        clock.advance(by: .milliseconds(1))
        try await waitUntil("the edge is written") { self.lines.writes.withLock { !$0.isEmpty } }
        XCTAssertEqual(lines.take(language), ["amber off"])
        try await waitUntil("the driver sleeps until the edge after") { self.clock.sleeperCount == 1 }
        XCTAssertEqual(clock.nextDeadline, clock.now + .milliseconds(1500))

        driver.show(.checkedIn)
        try await waitUntil("the blink's wake-up is cancelled") { self.clock.sleeperCount == 0 }
        XCTAssertEqual(lines.take(language), ["green on"])
    }

    func testAFailingLineIsReportedOncePerReasonAndKeepsWhatWasLastWritten() async throws {
        let driver = makeDriver()
        driver.show(.checkedIn)
        _ = lines.take(language)
        lines.failure.withLock { $0 = GPIOError(operation: "set", target: "LED #0", reason: "waiting for GPIO chip") }
        driver.show(.neverCheckedIn)
        XCTAssertEqual(driver.levels, [true, false, false], "what was last written successfully")
        // The blink keeps failing at every edge: one report.
        for _ in 0..<3 {
            try await waitUntil("the driver sleeps until the next edge") { self.clock.sleeperCount == 1 }
            clock.advance(to: try XCTUnwrap(clock.nextDeadline))
            await Task.megaYield()
        }
        XCTAssertEqual(reports, ["waiting for GPIO chip"])
    }

    func testOnceTheLinesAreBackEverythingIsWrittenAfresh() {
        let driver = makeDriver()
        driver.show(.checkedIn)
        XCTAssertEqual(lines.take(language), ["green on"])
        // The chip went and came back: its lines start off, whatever the driver last wrote.
        driver.outputsReset()
        XCTAssertEqual(lines.take(language), ["green on"], "written again although the driver had written it before")
        XCTAssertEqual(driver.levels, [true, false, false])
    }

    func testStopSwitchesEverythingOffAndEndsTheWakeUps() async throws {
        let driver = makeDriver()
        driver.show(.overdue)  // red: 1 s on, 1 s off
        XCTAssertEqual(lines.take(language), ["red on"])
        try await waitUntil("the driver sleeps until the next edge") { self.clock.sleeperCount == 1 }
        driver.stop()
        XCTAssertEqual(lines.take(language), ["red off"])
        try await waitUntil("no wake-up is left") { self.clock.sleeperCount == 0 }
        XCTAssertNil(driver.indicator)
        XCTAssertEqual(driver.levels, [false, false, false])
    }

    /// A watcher's light per dependent plays its own waveform over whatever the indicator shows,
    /// and a change of either alone is shown.
    func testOverlaysPlayTheirOwnLightWhateverTheIndicatorShows() {
        let withLight = LEDLanguage(leds: language.leds + [LED(name: "mum", colour: "white")], patterns: language.patterns)
        let driver = LEDDriver(language: withLight, setLED: { [lines] index, on throws(GPIOError) in try lines.set(index, on) },
                               monotonicNow: { [clock] in clock.now }, sleep: { [clock] in try await clock.sleep($0) },
                               report: { _ in })
        driver.show(.dependentsOK, overlays: ["mum": .on])
        XCTAssertEqual(lines.take(withLight), ["green on", "mum on"])
        XCTAssertEqual(driver.pattern.waveform(for: LED(name: "mum", colour: "white")), .on)
        driver.show(.dependentsOK, overlays: ["mum": .on])
        XCTAssertEqual(lines.take(withLight), [], "the same again changes nothing")
        driver.show(.dependentsOK, overlays: ["mum": .off])
        XCTAssertEqual(lines.take(withLight), ["mum off"], "the light alone changed")
        driver.show(.checkedIn, overlays: ["mum": .off])
        XCTAssertEqual(lines.take(withLight), [], "the indicator alone changed; green was already on")
        driver.stop()
        XCTAssertEqual(lines.take(withLight), ["green off"])
    }
}

