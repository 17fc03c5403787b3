import CheckInModels
import CheckInStoreLive
import ControlProtocol
import DevServer
import Foundation
import TestSupport
import XCTest

/// The real daemon on simulated GPIO: away mode set over the CLI survives SIGKILL and holds off
/// overdue; a short daily window goes reminder → last chance (the buzzer line toggling) → overdue;
/// the mains line dropping shows the battery pattern and reaches the reference backend.
final class DailyLifeEndToEndTests: XCTestCase {
    static let deviceID = "daily-life-device"
    static let token = "daily-life-token-0123456789"

    func testAwaySetOverTheCLISurvivesSIGKILLAndHoldsOffOverdueUntilItEnds() throws {
        let device = try DaemonHarness(interval: "4s", reminder: "2s")
        try device.start()
        try device.ctl(["check-in"])
        let away = try device.decode(AwayReport.self, device.ctl(["away", "--until", "1h", "--json"]))
        XCTAssertEqual(away.state, "away")
        XCTAssertGreaterThan(away.secondsLeft ?? 0, 3500)
        var status = try device.status()
        XCTAssertEqual(status.phase, "away")
        try device.waitUntil("the LEDs say away (after the acknowledgement)") { try device.status().indicator == "away" }

        device.killHard()
        try device.start()
        status = try device.status()
        XCTAssertEqual(status.phase, "away", "away mode is stored: a power cut keeps it")
        XCTAssertEqual(status.away?.until, away.until)
        // Past the deadline the interval would have set (4 s): still away, never overdue.
        let deadlinePassed = Date().addingTimeInterval(5)
        try device.waitUntil("the old deadline has passed") { Date() > deadlinePassed }
        status = try device.status()
        XCTAssertEqual(status.phase, "away")
        XCTAssertEqual(status.leds.map(\.on).filter { $0 }.count <= 1, true)

        let ended = try device.ctl(["away", "end"])
        XCTAssertEqual(ended.exitCode, 0, ended.standardError)
        XCTAssertTrue(ended.standardOutput.contains("fresh countdown"), ended.standardOutput)
        status = try device.status()
        XCTAssertEqual(status.phase, "checked_in", "a fresh countdown from the end of away mode")
        XCTAssertGreaterThan(status.secondsLeft ?? 0, 2)

        let periods = try device.decode([AwayPeriodReport].self, device.ctl(["away", "list", "--json"]))
        XCTAssertEqual(periods.count, 1)
        XCTAssertEqual(periods.first?.endReason, "cli")
        let history = try device.ctl(["history"])
        XCTAssertTrue(history.standardOutput.contains("away, ended with lifesignalctl"), history.standardOutput)
        try device.waitUntil("overdue once the fresh countdown runs out") { try device.status().phase == "overdue" }

        // Refusals say why and change nothing.
        let notAway = try device.ctl(["away", "end"])
        XCTAssertEqual(notAway.exitCode, 1)
        XCTAssertTrue(notAway.standardError.contains("not away"), notAway.standardError)
        let garbage = try device.ctl(["away", "--until", "someday"])
        XCTAssertEqual(garbage.exitCode, 64)
        XCTAssertTrue(garbage.standardError.contains("neither a duration"), garbage.standardError)
        XCTAssertEqual(device.stop(), 0)
    }

    func testAShortDailyWindowGoesReminderThenLastChanceWithTheBuzzerThenOverdue() throws {
        // A window (in UTC) that opened at the start of this minute and ends at the next minute
        // boundary at least 15 s away; the last press was two minutes ago, before it.
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let now = Date()
        let minuteStart = calendar.date(bySetting: .second, value: 0, of: now.addingTimeInterval(-59))!
        var end = minuteStart.addingTimeInterval(60)
        if end.timeIntervalSince(now) < 15 { end = end.addingTimeInterval(60) }
        func clock(_ date: Date) -> String {
            let parts = calendar.dateComponents([.hour, .minute], from: date)
            return String(format: "%02d:%02d", parts.hour!, parts.minute!)
        }
        // A window ending at midnight is written 24:00; one opening at 23:59 and ending after it cannot be one window.
        let endText = clock(end) == "00:00" ? "24:00" : clock(end)
        try XCTSkipIf(end.timeIntervalSince(minuteStart) > 60 && clock(end) == "00:01", "the window would cross midnight")
        let device = try DaemonHarness(interval: "1h", reminder: "10m", grace: "6s", checkIn: """
            schedule = "daily"
            windows = ["\(clock(minuteStart))-\(endText)"]
            time_zone = "UTC"
            """, developer: "trust_wall_clock = true", config: """

            [buzzer]
            line = "GPIO26"
            last_chance = "100ms on, 400ms off"
            """)
        let pressed = WallTime(microsecondsSinceEpoch: Int64(now.addingTimeInterval(-120).timeIntervalSince1970 * 1_000_000))
        try awaitResult { [storePath = device.storePath] in
            try FileManager.default.createDirectory(atPath: (storePath as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            let database = try await CheckInDatabase.open(path: storePath)
            _ = try await database.record(NewCheckIn(id: .random(), at: DeviceInstant(
                wall: pressed, uptime: .seconds(10), bootID: "earlier-boot", wallClockSynchronized: true), source: .button))
            await database.close()
        }
        try device.start()
        var status = try device.status()
        XCTAssertEqual(status.phase, "reminder", "the window is open and the last press was before it")
        XCTAssertEqual(status.indicator, "reminder")
        XCTAssertEqual(status.schedule?.kind, "daily")
        XCTAssertEqual(status.deadline.flatMap(WallTime.init(iso8601:)),
                       WallTime(microsecondsSinceEpoch: Int64(end.timeIntervalSince1970) * 1_000_000))
        try device.waitUntil("the reminder beeps as it starts") {
            let status = try device.status()
            return status.buzzer?.signal == "reminder" && (status.buzzer?.beeps ?? 0) >= 1
        }
        let beepsAtReminder = try device.status().buzzer?.beeps ?? 0

        try device.waitUntil("the window ends: the last chance", timeout: 150) { try device.status().phase == "last_chance" }
        try device.waitUntil("the buzzer line toggles in the last chance") {
            let status = try device.status()
            return status.indicator == "last_chance" && status.buzzer?.signal == "last_chance"
                && (status.buzzer?.beeps ?? 0) >= beepsAtReminder + 3
        }
        try device.waitUntil("overdue when the grace ends") { try device.status().phase == "overdue" }
        status = try device.status()
        XCTAssertEqual(status.indicator, "overdue")
        XCTAssertEqual(status.buzzer?.signal, nil, "overdue: the people are told, the warning is over")
        XCTAssertEqual(status.buzzer?.on, false)
        XCTAssertEqual(device.stop(), 0)
    }

    func testTheMainsLineDroppingShowsTheBatteryPatternAndTellsTheBackend() throws {
        let server = try makeServer(device: Self.deviceID, token: Self.token)
        let device = try DaemonHarness.uplinked(to: server.baseURL, token: Self.token, for: self, extra: """

            [power]
            mains_line = "GPIO16"
            """)
        try device.start()
        try device.ctl(["check-in"])
        try device.waitUntil("checked in") { try device.status().indicator == "checked_in" }
        XCTAssertEqual(try device.status().power?.mains, "present")

        let dropped = try device.ctl(["sim", "input", "mains", "off", "--json"])
        XCTAssertEqual(dropped.exitCode, 0, dropped.standardError)
        try device.waitUntil("the LEDs show the battery pattern") {
            let status = try device.status()
            return status.indicator == "on_battery" && status.power?.mains == "lost"
        }
        try device.waitUntil("the backend has the event") {
            try server.storedEvents(device: Self.deviceID).map(\.kind) == ["on_battery"]
        }

        try device.ctl(["sim", "input", "mains", "on"])
        try device.waitUntil("power restored, on the LEDs and at the backend") {
            try device.status().indicator == "checked_in"
                && server.storedEvents(device: Self.deviceID).map(\.kind) == ["on_battery", "power_restored"]
        }

        // A daemon that dies is reported at its next start; one that stops cleanly is not.
        device.killHard()
        try device.start()
        try device.waitUntil("the unexpected restart reaches the backend") {
            try server.storedEvents(device: Self.deviceID).map(\.kind).last == "unexpected_restart"
        }
        XCTAssertEqual(device.stop(), 0)
        try device.start()
        _ = try device.status()
        XCTAssertEqual(device.stop(), 0)
        XCTAssertEqual(try server.storedEvents(device: Self.deviceID).filter { $0.kind == "unexpected_restart" }.count, 1)
        XCTAssertTrue(try server.storedEvents(device: Self.deviceID).allSatisfy { $0.receipts == 1 })

        let noInput = try device.ctl(["sim", "input", "low_battery", "on"], socket: nil)
        XCTAssertEqual(noInput.exitCode, 69, "the daemon has stopped")
    }

    func testAwayPausesTheDevicesOwnCheckAndItsEndResumesItWithoutANotificationAndTheMainsReachesItsLog() throws {
        let server = try makeServer(device: Self.deviceID, token: Self.token)
        let keyPath = try tokenFile(HealthchecksProject.devReadWriteKey)
        let device = try DaemonHarness(interval: "1h", reminder: "10m", config: """

            [healthchecks]
            api_key_file = "\(keyPath)"
            api_url = "\(server.baseURL)"
            retry_max = "1s"
            timeout = "5s"

            [power]
            mains_line = "GPIO16"
            """)
        func checkIn() -> DevCheck? { server.healthchecksChecks.first { $0.slug == "lifesignal-check-in" } }
        try device.start()
        try device.ctl(["check-in"])
        try device.waitUntil("the check-in check is up") { checkIn()?.status == "up" }

        try device.ctl(["away", "--until", "2d"])
        try device.waitUntil("away mode pauses the check-in check") { checkIn()?.status == "paused" }
        XCTAssertEqual(server.healthchecksChecks.first { $0.slug == "lifesignal-heartbeat" }?.status == "paused", false,
                       "the heartbeat check runs on")
        // A restart keeps it paused (the device finds it paused and leaves it).
        device.killHard()
        try device.start()
        try device.waitUntil("in step again after the restart") { try device.status().healthchecksChecks?.inStep == true }
        XCTAssertEqual(checkIn()?.status, "paused")

        try device.ctl(["away", "end"])
        try device.waitUntil("its end resumes the check with a ping") { checkIn()?.status == "up" }
        XCTAssertEqual(checkIn()?.notifications, [], "nobody was notified: not of the pause, not of the resume")

        // The mains going is in the check's log, and changes nothing on it.
        try device.ctl(["sim", "input", "mains", "off"])
        try device.waitUntil("the event is in the check's log") {
            server.healthchecksPings.contains { $0.kind == "log" && $0.body.contains("running on battery") }
        }
        XCTAssertEqual(checkIn()?.status, "up")
        XCTAssertEqual(device.stop(), 0)
    }
}
