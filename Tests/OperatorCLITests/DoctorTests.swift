import Glibc
@testable import OperatorCLI
import SQLiteDatabase
import TestSupport
import XCTest

final class ConfigCheckTests: XCTestCase {
    func testAValidFileIsReportedWithTheStoreAndSocketItResolvesTo() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("ok.toml", """
            [store]
            path = "\(directory.path)/store.sqlite"
            [control]
            socket = "\(directory.path)/control.sock"
            """)
        guard case let .success(loaded) = ConfigSource.load(explicitPath: path, environment: [:]) else {
            return XCTFail("a valid file was refused")
        }
        XCTAssertEqual(loaded.path, path)
        XCTAssertEqual(loaded.configuration.storePath, "\(directory.path)/store.sqlite")
    }

    func testMistakesNameTheFileLineAndKey() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("bad.toml", "[button]\ndebounse = \"30ms\"\n")
        guard case let .failure(failure) = ConfigSource.load(explicitPath: path, environment: [:]) else {
            return XCTFail("an unknown key was accepted")
        }
        XCTAssertEqual(failure.path, path)
        XCTAssertTrue(failure.message.contains("\(path):2"), failure.message)
        XCTAssertTrue(failure.message.contains("debounse"), failure.message)
    }

    func testAnExplicitFileThatIsMissingIsAnErrorNotTheDefaults() throws {
        let directory = try TemporaryDirectory()
        guard case let .failure(failure) = ConfigSource.load(explicitPath: "\(directory.path)/none.toml", environment: [:]) else {
            return XCTFail("a missing explicit file fell back to the defaults")
        }
        XCTAssertTrue(failure.message.contains("no such file"), failure.message)
    }
}

final class StoreProbeTests: XCTestCase {
    func testAHealthyStorePassesIntegrityCheck() throws {
        let directory = try TemporaryDirectory()
        let path = "\(directory.path)/store.sqlite"
        let connection = try Connection(path: path)
        try connection.execute("PRAGMA journal_mode=WAL; CREATE TABLE t(x); INSERT INTO t VALUES (1), (2);")
        let findings = StoreProbe.check(path: path)
        XCTAssertEqual(findings.map(\.outcome), [.ok], findings.map(\.text).joined(separator: "\n"))
    }

    func testAFileThatIsNotADatabaseIsAProblemWithAFix() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("store.sqlite", String(repeating: "not a database ", count: 400))
        let finding = StoreProbe.integrity(path)
        XCTAssertEqual(finding.outcome, .problem, finding.text)
        XCTAssertNotNil(finding.fix)
    }

    func testACorruptedPageIsFound() throws {
        let directory = try TemporaryDirectory()
        let path = "\(directory.path)/store.sqlite"
        do {
            let connection = try Connection(path: path)
            try connection.execute("CREATE TABLE t(x TEXT); CREATE INDEX t_x ON t(x);")
            try connection.execute("BEGIN")
            for index in 0..<400 { try connection.execute("INSERT INTO t VALUES ('row \(index) \(String(repeating: "x", count: 50))')") }
            try connection.execute("COMMIT")
        }
        // Overwrite the whole second page (the table's root) with garbage.
        let descriptor = open(path, O_WRONLY)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        let garbage = [UInt8](repeating: 0x5A, count: 4096)
        _ = garbage.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 4096) }
        close(descriptor)
        XCTAssertEqual(StoreProbe.integrity(path).outcome, .problem)
    }

    func testNoStoreYetIsAWarningButNoDirectoryIsAProblem() throws {
        let directory = try TemporaryDirectory()
        XCTAssertEqual(StoreProbe.check(path: "\(directory.path)/store.sqlite").map(\.outcome), [.warning])
        XCTAssertEqual(StoreProbe.check(path: "\(directory.path)/missing/store.sqlite").map(\.outcome), [.problem])
    }
}

final class GPIOLineFindingTests: XCTestCase {
    let chip = GPIOChipProbe.ChipInfo(path: "/dev/gpiochip0", name: "gpiochip0", label: "pinctrl-bcm2711", lineCount: 3)
    let lines = [
        GPIOChipProbe.LineInfo(offset: 0, name: "GPIO5", consumer: "", used: false),
        GPIOChipProbe.LineInfo(offset: 1, name: "GPIO6", consumer: "lifesignald", used: true),
        GPIOChipProbe.LineInfo(offset: 2, name: "GPIO13", consumer: "w1-gpio", used: true),
    ]

    func testLinesAreFoundByNameOrOffsetAndTheirUseIsJudged() {
        XCTAssertEqual(GPIOChipProbe.lineFinding(role: "green LED", line: .name("GPIO5"), lines: lines, chip: chip).outcome, .ok)
        XCTAssertEqual(GPIOChipProbe.lineFinding(role: "amber LED", line: .offset(1), lines: lines, chip: chip).outcome, .ok)
        let busy = GPIOChipProbe.lineFinding(role: "red LED", line: .name("GPIO13"), lines: lines, chip: chip)
        XCTAssertEqual(busy.outcome, .problem)
        XCTAssertTrue(busy.detail.contains("w1-gpio"), busy.detail)
        let missing = GPIOChipProbe.lineFinding(role: "button", line: .name("GPIO17"), lines: lines, chip: chip)
        XCTAssertEqual(missing.outcome, .problem)
        XCTAssertTrue(missing.fix?.contains("gpioinfo") == true)
    }

    func testAChipThatDoesNotExistIsNotResolved() {
        XCTAssertNil(GPIOChipProbe.resolveChip("/dev/gpiochip-that-does-not-exist"))
        XCTAssertNil(GPIOChipProbe.resolveChip("no-such-label-\(getpid())"))
    }
}

final class DoctorTests: XCTestCase {
    func testAnInvalidConfigIsTheOnlyFindingAndAProblem() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("bad.toml", "[gpio]\nbackend = \"magic\"\n")
        let findings = Doctor.examine(explicitConfig: path, socket: nil, environment: [:])
        XCTAssertEqual(findings.map(\.outcome), [.problem])
        XCTAssertEqual(findings.first?.check, "config")
    }

    func testWithoutADaemonTheSocketCheckFailsAndSaysHowToStartIt() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("ok.toml", """
            [store]
            path = "\(directory.path)/store.sqlite"
            [control]
            socket = "\(directory.path)/control.sock"
            """)
        let findings = Doctor.examine(explicitConfig: path, socket: nil, environment: [:], unitFiles: [])
        XCTAssertEqual(findings.map(\.check), ["config", "gpio", "store", "clock", "backend", "notify", "help button", "daemon"])
        XCTAssertEqual(findings.first?.outcome, .ok)
        XCTAssertEqual(findings.first { $0.check == "gpio" }?.outcome, .ok, "simulated GPIO needs no chip")
        let daemon = try XCTUnwrap(findings.last)
        XCTAssertEqual(daemon.outcome, .problem)
        XCTAssertTrue(daemon.fix?.contains("systemctl start lifesignald") == true, daemon.text)
    }
}

/// Doctor tells the truth about reach: a finding, never "ok", when nobody would be told.
final class DoctorReachTests: XCTestCase {
    var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
    }

    private func examine(_ extra: String, unitFiles: [String] = []) throws -> [DoctorFinding] {
        let path = try directory.write("device.toml", """
            [store]
            path = "\(directory.path)/store.sqlite"
            [control]
            socket = "\(directory.path)/control.sock"
            \(extra)
            """)
        return Doctor.examine(explicitConfig: path, socket: nil, environment: [:], unitFiles: unitFiles)
    }

    func testAnOfflineDeviceIsAProblemBecauseNobodyIsToldOfAMissedCheckInAndItsHelpButtonReachesNobody() throws {
        let findings = try examine("")
        let notify = try XCTUnwrap(findings.first { $0.check == "notify" })
        XCTAssertEqual(notify.outcome, .problem, notify.text)
        XCTAssertTrue(notify.detail.contains("nobody is told when a check-in is missed"), notify.text)
        XCTAssertTrue(notify.fix?.contains("api_key_file") == true, notify.text)
        let help = try XCTUnwrap(findings.first { $0.check == "help button" })
        XCTAssertEqual(help.outcome, .warning, help.text)
        XCTAssertTrue(help.detail.contains("a long press reaches nobody"), help.text)
    }

    func testAHealthchecksCheckInCheckReachesSomeoneButWithoutAnAlertCheckTheHelpButtonDoesNot() throws {
        let findings = try examine("""
            [healthchecks]
            check_in_url = "https://hc-ping.com/5b1c3e7a-0d6f-4b8e-9a51-2f4c8d7e6a10"
            """)
        XCTAssertEqual(findings.first { $0.check == "notify" }?.outcome, .ok)
        XCTAssertTrue(findings.first { $0.check == "notify" }?.detail.contains("healthchecks check-in check") == true)
        let help = try XCTUnwrap(findings.first { $0.check == "help button" })
        XCTAssertEqual(help.outcome, .warning, help.text)
        XCTAssertTrue(help.fix?.contains("alert_url") == true, help.text)
        // The hand-made check is not contacted without --send-test.
        XCTAssertTrue(findings.first { $0.check == "healthchecks check-in check" }?.detail.contains("--send-test") == true)
    }

    /// With only a broker, Home Assistant's overdue sensor is how someone is told, and only through
    /// an automation of the family's own: doctor counts it and says so; a long press is an event there,
    /// not a help alert anyone confirms.
    func testAnMQTTBrokerAloneReportsMissedCheckInsThroughHomeAssistantAndSaysTheLongPressIsOnlyAnEvent() throws {
        let findings = try examine("""
            [mqtt]
            host = "127.0.0.1"
            port = 1
            """)
        let notify = try XCTUnwrap(findings.first { $0.check == "notify" })
        XCTAssertEqual(notify.outcome, .ok, notify.text)
        XCTAssertTrue(notify.detail.contains("the MQTT broker") && notify.detail.contains("Home Assistant automation"), notify.text)
        let help = try XCTUnwrap(findings.first { $0.check == "help button" })
        XCTAssertEqual(help.outcome, .warning, help.text)
        XCTAssertTrue(help.detail.contains("published to the MQTT broker as an event"), help.text)
    }

    func testHelpAlertsTurnedOffAreAWarningThatSaysHowToTurnThemOn() throws {
        let findings = try examine("""
            [healthchecks]
            alert_url = "https://hc-ping.com/5b1c3e7a-0d6f-4b8e-9a51-2f4c8d7e6a10"
            [alert]
            enabled = false
            """)
        let help = try XCTUnwrap(findings.first { $0.check == "help button" })
        XCTAssertEqual(help.outcome, .warning)
        XCTAssertTrue(help.detail.contains("help alerts are off"), help.text)
    }

    func testTheInstalledServiceOnSimulatedGPIOIsAWarning() throws {
        let unit = try directory.write("lifesignald.service", "[Service]\n")
        let simulated = try examine("", unitFiles: [unit])
        let gpio = try XCTUnwrap(simulated.first { $0.check == "gpio" && $0.outcome == .warning })
        XCTAssertTrue(gpio.detail.contains("simulated GPIO") && gpio.detail.contains(unit), gpio.text)
        XCTAssertTrue(gpio.fix?.contains("backend = \"libgpiod\"") == true, gpio.text)
        // Without the package's unit (the demo, a developer's machine) simulated GPIO is fine.
        XCTAssertNil(try examine("").first { $0.check == "gpio" && $0.outcome == .warning })
    }
}
