import ControlProtocol
import Foundation
import XCTest

/// The real daemon and CLI, end to end: press, watch the LEDs, kill, restart, nothing lost.
final class DaemonEndToEndTests: XCTestCase {
    func testPressAcknowledgesOnlyOnceStoredAndTheLEDsFollowThePhases() throws {
        let device = try DaemonHarness(interval: "6s", reminder: "3s")
        try device.start()

        var status = try device.status()
        XCTAssertEqual(status.phase, "never_checked_in")
        XCTAssertEqual(status.gpioBackend, "simulated")
        XCTAssertEqual(status.leds.map(\.name), ["green", "amber", "red"])

        // Press through the simulated switch (it chatters); the answer comes once released.
        try device.ctl(["sim", "press", "--hold", "150ms", "--json"])
        try device.waitUntil("the press is stored") { try device.status().lastCheckIn != nil }
        status = try device.status()
        XCTAssertEqual(status.lastCheckIn?.source, "button")
        let history = try device.decode([CheckInReport].self, device.ctl(["history", "--json"]))
        XCTAssertEqual(history.count, 1, "a chattering press is one check-in")

        // Checked in: green steady, nothing else lit (after the acknowledgement has played).
        try device.waitUntil("the LEDs show checked in") {
            let status = try device.status()
            return status.indicator == "checked_in" && status.leds.map(\.on) == [true, false, false]
        }
        // Reminder window after 3 s: amber steady.
        try device.waitUntil("the reminder starts") {
            let status = try device.status()
            return status.phase == "reminder" && status.leds.map(\.on) == [false, true, false]
        }
        // Overdue after 6 s: the red LED blinks, green and amber stay off.
        try device.waitUntil("the device is overdue and red is lit") {
            let status = try device.status()
            return status.phase == "overdue" && status.leds.map(\.on) == [false, false, true]
        }
        XCTAssertEqual(device.stop(), 0, "SIGTERM is a clean shutdown")
        XCTAssertFalse(FileManager.default.fileExists(atPath: device.socketPath), "socket removed on shutdown")
    }

    func testAcknowledgedCheckInSurvivesSIGKILLAndTheDeadlineSurvivesRestart() throws {
        let device = try DaemonHarness(interval: "1h", reminder: "10m")
        try device.start()
        let checkIn = try device.decode(CheckInReport.self, device.ctl(["check-in", "--json"]))
        device.killHard()  // right after the acknowledgement: no chance to flush anything

        try device.start()
        let history = try device.decode([CheckInReport].self, device.ctl(["history", "--json"]))
        XCTAssertEqual(history.map(\.id), [checkIn.id])
        let status = try device.status()
        XCTAssertEqual(status.phase, "checked_in")
        XCTAssertEqual(status.lastCheckIn?.id, checkIn.id)
        XCTAssertGreaterThan(status.secondsLeft ?? 0, 3500)
        _ = device.stop()
    }

    func testOverdueDeviceIsStillOverdueAfterARestart() throws {
        let device = try DaemonHarness(interval: "2s", reminder: "1s")
        try device.start()
        try device.ctl(["check-in"])
        try device.waitUntil("overdue") { try device.status().phase == "overdue" }
        device.killHard()
        try device.start()
        let status = try device.status()
        XCTAssertEqual(status.phase, "overdue", "an overdue device that reboots is still overdue")
        XCTAssertEqual(status.indicator, "overdue")
        _ = device.stop()
    }

    func testSettingsFromTheCLIAreValidatedAppliedAndKept() throws {
        let device = try DaemonHarness(interval: "1h", reminder: "10m")
        try device.start()
        let refused = try device.ctl(["settings", "set", "--reminder", "2h"])
        XCTAssertEqual(refused.exitCode, 1)
        XCTAssertTrue(refused.standardError.contains("must be shorter than the interval"), refused.standardError)

        // Not a duration at all: refused by lifesignalctl before sending (bad arguments).
        let garbage = try device.ctl(["settings", "set", "--interval", "soon"])
        XCTAssertEqual(garbage.exitCode, 64)
        XCTAssertTrue(garbage.standardError.contains("not a duration"), garbage.standardError)

        let saved = try device.decode(SettingsReport.self, device.ctl(["settings", "set", "--interval", "2h", "--reminder", "30m", "--json"]))
        XCTAssertEqual(saved.intervalSeconds, 7200)
        XCTAssertEqual(saved.reminderSeconds, 1800)
        _ = device.stop()
        try device.start()
        let settings = try device.decode(SettingsReport.self, device.ctl(["settings", "--json"]))
        XCTAssertEqual(settings.intervalSeconds, 7200, "a CLI change survives a restart with an unedited config")
        _ = device.stop()
    }

    func testLongPressIsNotACheckIn() throws {
        let device = try DaemonHarness(interval: "1h", reminder: "10m", config: "\n[button]\nlong_press = \"1s\"\n")
        try device.start()
        try device.ctl(["sim", "press", "--hold", "1500ms"])
        XCTAssertEqual(try device.status().lastCheckIn, nil)
        XCTAssertTrue(device.log.contains("long press"), device.log)
        _ = device.stop()
    }

    func testCLIAgainstNoDaemonSaysWhereItLooked() throws {
        let device = try DaemonHarness()
        let result = try device.ctl(["status"])
        XCTAssertEqual(result.exitCode, 69)
        XCTAssertTrue(result.standardError.contains(device.socketPath), result.standardError)
        XCTAssertEqual(result.standardError.split(separator: "\n").count, 1, "one line, no stack trace")
    }

    func testBadConfigExitsWithEXCONFIGNamingTheKey() throws {
        let device = try DaemonHarness(interval: "1h", reminder: "2h")
        let process = Process()
        process.executableURL = DaemonHarness.binaries.appendingPathComponent("lifesignald")
        process.arguments = ["--config", device.configPath]
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 78)
        XCTAssertTrue(message.contains("check_in.reminder"), message)
        XCTAssertTrue(message.contains(device.configPath), message)
    }
}
