import CheckInModels
import DeviceConfig
import LEDLanguage
import XCTest

final class DeviceConfigurationTests: XCTestCase {
    static let environment = ["HOME": "/home/ada", "USER": "ada"]

    private func load(_ text: String?, environment: [String: String] = environment) -> Result<DeviceConfiguration, ConfigErrors> {
        DeviceConfiguration.load(text: text, path: "/etc/lifesignal/lifesignald.toml", environment: environment)
    }

    private func loaded(_ text: String?, environment: [String: String] = environment,
                        file: StaticString = #filePath, line: UInt = #line) throws -> DeviceConfiguration {
        switch load(text, environment: environment) {
        case .success(let configuration): return configuration
        case .failure(let errors):
            XCTFail("unexpected problems:\n\(errors)", file: file, line: line)
            throw errors
        }
    }

    /// The problems' descriptions; fails when the text loads.
    private func problems(_ text: String?, environment: [String: String] = environment,
                          file: StaticString = #filePath, line: UInt = #line) -> [String] {
        switch load(text, environment: environment) {
        case .success(let configuration):
            XCTFail("expected problems, loaded \(configuration)", file: file, line: line)
            return []
        case .failure(let errors):
            return errors.problems.map(\.description)
        }
    }

    // MARK: Defaults

    func testNoFileAndEmptyFileGiveEveryDefault() throws {
        let none = try loaded(nil)
        XCTAssertEqual(try loaded(""), none)
        XCTAssertNil(none.configuredSettings)
        XCTAssertEqual(none.settingsPolicy, .standard)
        XCTAssertFalse(none.developerShortIntervals)
        XCTAssertEqual(none.button, ButtonConfiguration(debounce: .milliseconds(30), longPress: .seconds(3),
                                                        line: .name("GPIO17"), activeLow: true, bias: .pullUp))
        XCTAssertEqual(none.gpio, GPIOConfiguration(backend: .simulated, chip: "gpiochip0"))
        XCTAssertEqual(none.leds.map(\.led.name), ["green", "amber", "red"])
        XCTAssertEqual(none.leds.map(\.line), [.name("GPIO5"), .name("GPIO6"), .name("GPIO13")])
        XCTAssertEqual(none.leds.map(\.activeLow), [false, false, false])
        XCTAssertEqual(none.ledLanguage, LEDLanguage.standard)
        XCTAssertEqual(none.acknowledgement, .milliseconds(1500))
        XCTAssertEqual(none.storePath, "/home/ada/.local/state/lifesignal/lifesignal.sqlite")
        XCTAssertEqual(none.controlSocket, "/tmp/lifesignal-ada/control.sock")
        XCTAssertEqual(none.simulator, SimulatorConfiguration(chatterEdges: 20, chatterSpan: .milliseconds(5), terminal: .auto))
        XCTAssertEqual(none.logLevel, .info)
        XCTAssertEqual(DeviceConfiguration.defaultConfigPath, "/etc/lifesignal/lifesignald.toml")
        XCTAssertEqual(DeviceConfiguration(storePath: none.storePath, controlSocket: none.controlSocket), none)
    }

    func testExampleFileLoadsAndChangesNothing() throws {
        let text = try ExampleFile.text()
        XCTAssertEqual(try loaded(text), try loaded(nil))
    }

    func testExampleFileWithEveryKeyUncommentedLoadsToTheDefaults() throws {
        // Uncommenting every `#key = value` line must still give the defaults, which proves that the
        // example documents real keys with their real defaults (paths excepted: they are examples).
        // [healthchecks] has two ways that exclude each other (the device's own checks, or
        // hand-made ones): each is uncommented in a pass of its own.
        let managedKeys = ["api_key_file", "api_url", "slug_prefix"]
        let handMadeKeys = ["check_in_url", "heartbeat_url", "alert_url"]
        for (skipped, managed) in [(managedKeys, false), (handMadeKeys, true)] {
            let lines = try ExampleFile.text().split(separator: "\n", omittingEmptySubsequences: false)
            var uncommented = 0
            let text = lines.map { line -> String in
                guard line.hasPrefix("#"), line.dropFirst().first?.isLetter == true, line.contains(" = "),
                      !skipped.contains(where: { line.hasPrefix("#\($0) = ") }) else { return String(line) }
                uncommented += 1
                return String(line.dropFirst())
            }.joined(separator: "\n")
            XCTAssertGreaterThan(uncommented, 30)
            var configuration = try loaded(text)
            XCTAssertEqual(configuration.configuredSettings, CheckInSettings.default)
            XCTAssertEqual(configuration.storePath, "/var/lib/lifesignal/lifesignal.sqlite")
            XCTAssertEqual(configuration.controlSocket, "/run/lifesignal/control.sock")
            // The uplink and healthchecks URLs are examples too; the rest of those tables are defaults.
            XCTAssertEqual(configuration.uplink, UplinkConfiguration(url: "https://api.lifesignal.example",
                                                                     tokenFile: "/etc/lifesignal/token"))
            XCTAssertEqual(configuration.healthchecks, managed
                ? HealthchecksConfiguration(checkInURL: nil, management: HealthchecksManagement(
                    apiKeyFile: "/etc/lifesignal/healthchecks-api-key"))
                : HealthchecksConfiguration(
                    checkInURL: "https://hc-ping.com/00000000-0000-4000-8000-000000000000",
                    heartbeatURL: "https://hc-ping.com/00000000-0000-4000-8000-000000000001",
                    alertURL: "https://hc-ping.com/00000000-0000-4000-8000-000000000002"))
            XCTAssertEqual(configuration.mqtt, MQTTConfiguration(host: "homeassistant.local", username: "lifesignal",
                                                                 passwordFile: "/etc/lifesignal/mqtt-password"))
            let defaults = try loaded(nil)
            configuration.mqtt = nil
            configuration.configuredSettings = nil
            configuration.storePath = defaults.storePath
            configuration.controlSocket = defaults.controlSocket
            configuration.uplink = nil
            configuration.healthchecks = nil
            // With the example's uplink and alert check, alerts are on (as the example says); without, off.
            XCTAssertTrue(configuration.alert.enabled)
            configuration.alert.enabled = false
            XCTAssertEqual(configuration, defaults)
        }
    }

    func testEveryKeyCanBeSet() throws {
        let configuration = try loaded("""
            [check_in]
            interval = "16h"
            reminder = "90m"
            grace = "5m"
            schedule = "daily"
            windows = ["07:00-10:00", "18:00-20:00"]
            saturday = ["09:00-11:00"]
            sunday = []
            time_zone = "Europe/London"
            [button]
            debounce = "0s"
            long_press = "5s"
            line = 4
            active_low = false
            bias = "pull-down"
            [gpio]
            backend = "libgpiod"
            chip = "/dev/gpiochip4"
            [leds]
            order = ["ok", "alarm"]
            [leds.ok]
            colour = "blue"
            line = "GPIO22"
            active_low = true
            [leds.alarm]
            line = 27
            [patterns.never_checked_in]
            ok = "100ms on, 900ms off"
            [patterns.checked_in]
            ok = "on"
            [patterns.reminder]
            alarm = "200ms on, 800ms off"
            [patterns.overdue]
            alarm = "on"
            [patterns.fault]
            ok = "100ms on, 100ms off"
            alarm = "100ms off, 100ms on"
            [patterns.acknowledged]
            ok = "50ms on, 50ms off"
            [patterns.long_press]
            ok = "on"
            alarm = "on"
            [patterns.ping_pending]
            ok = "200ms on, 200ms off, 200ms on, 1400ms off"
            [patterns.alert_cancel_window]
            alarm = "100ms on, 100ms off"
            [patterns.alert_sending]
            alarm = "on"
            ok = "100ms on, 900ms off"
            [patterns.alert_delivered]
            alarm = "on"
            ok = "300ms on, 300ms off"
            [patterns.checked_in_not_uploaded]
            ok = "2000ms on, 500ms off"
            [patterns.reminder_not_uploaded]
            alarm = "2000ms on, 200ms off"
            [patterns.last_chance]
            alarm = "150ms on, 150ms off"
            [patterns.away]
            ok = "100ms on, 4900ms off"
            [patterns.on_battery]
            ok = "700ms on, 700ms off"
            [feedback]
            acknowledgement = "3s"
            [store]
            path = "/data/ls.sqlite"
            [control]
            socket = "/run/ls.sock"
            [simulator]
            chatter_edges = 0
            chatter_span = "1s"
            terminal = "off"
            [log]
            level = "trace"
            [alert]
            enabled = false
            cancel_window = "10s"
            delivered_display = "2m"
            [uplink]
            url = "https://api.example.org"
            token_file = "/etc/lifesignal/token"
            batch_size = 50
            timeout = "10s"
            retry_max = "5m"
            stale_after = "3h"
            [away]
            press_ends = false
            [quiet_hours]
            from = "22:30"
            to = "06:45"
            [buzzer]
            line = "GPIO26"
            active_low = true
            reminder = "off"
            last_chance = "300ms on, 9700ms off"
            ping = "100ms on, 59900ms off"
            alert_cancel_window = "200ms on, 200ms off"
            [power]
            mains_line = 16
            mains_active_low = true
            low_battery_line = "GPIO20"
            low_battery_active_low = true
            """)
        XCTAssertEqual(configuration.configuredSettings, CheckInSettings(interval: .seconds(16 * 3600), reminder: .seconds(90 * 60)))
        XCTAssertEqual(configuration.grace, .seconds(300))
        let window = { (from: Int, to: Int) in
            DailyWindow(start: ClockTime(minuteOfDay: from * 60), end: ClockTime(minuteOfDay: to * 60))
        }
        XCTAssertEqual(configuration.schedule, .daily(DailySchedule(
            windows: [window(7, 10), window(18, 20)], overrides: [.saturday: [window(9, 11)], .sunday: []], timeZone: "Europe/London")))
        XCTAssertEqual(configuration.timeZone, "Europe/London")
        XCTAssertFalse(configuration.awayPressEnds)
        XCTAssertEqual(configuration.quietHours, QuietHours(from: ClockTime(hour: 22, minute: 30)!, to: ClockTime(hour: 6, minute: 45)!))
        XCTAssertEqual(configuration.buzzer?.line, .name("GPIO26"))
        XCTAssertEqual(configuration.buzzer?.activeLow, true)
        XCTAssertEqual(configuration.buzzer?.pattern(for: .reminder), .off)
        XCTAssertEqual(configuration.buzzer?.pattern(for: .lastChance), .blink(on: .milliseconds(300), off: .milliseconds(9700)))
        XCTAssertEqual(configuration.power, PowerConfiguration(mainsLine: .offset(16), mainsActiveLow: true,
                                                               lowBatteryLine: .name("GPIO20"), lowBatteryActiveLow: true))
        XCTAssertEqual(configuration.alert, AlertConfiguration(enabled: false, cancelWindow: .seconds(10), deliveredDisplay: .seconds(120)))
        XCTAssertEqual(configuration.uplink, UplinkConfiguration(url: "https://api.example.org", tokenFile: "/etc/lifesignal/token",
                                                                 batchSize: 50, timeout: .seconds(10), retryMax: .seconds(300),
                                                                 staleAfter: .seconds(3 * 3600)))
        XCTAssertEqual(configuration.button, ButtonConfiguration(debounce: .zero, longPress: .seconds(5), line: .offset(4),
                                                                 activeLow: false, bias: .pullDown))
        XCTAssertEqual(configuration.gpio, GPIOConfiguration(backend: .libgpiod, chip: "/dev/gpiochip4"))
        XCTAssertEqual(configuration.leds, [
            LEDWiring(led: LED(name: "ok", colour: "blue"), line: .name("GPIO22"), activeLow: true),
            LEDWiring(led: LED(name: "alarm", colour: "alarm"), line: .offset(27), activeLow: false),
        ])
        XCTAssertEqual(configuration.ledLanguage.leds, configuration.leds.map(\.led))
        XCTAssertEqual(configuration.ledLanguage.pattern(for: .overdue), LEDPattern(["alarm": .on]))
        XCTAssertEqual(configuration.ledLanguage.pattern(for: .reminder),
                       LEDPattern(["alarm": .blink(on: .milliseconds(200), off: .milliseconds(800))]))
        XCTAssertEqual(configuration.ledLanguage.pattern(for: .starting), LEDPattern([:]))
        XCTAssertEqual(configuration.acknowledgement, .seconds(3))
        XCTAssertEqual(configuration.storePath, "/data/ls.sqlite")
        XCTAssertEqual(configuration.controlSocket, "/run/ls.sock")
        XCTAssertEqual(configuration.simulator, SimulatorConfiguration(chatterEdges: 0, chatterSpan: .seconds(1), terminal: .off))
        XCTAssertEqual(configuration.logLevel, .trace)
    }

    // MARK: Check-in settings

    func testReminderNotShorterThanIntervalIsRejected() {
        XCTAssertEqual(problems("[check_in]\ninterval = \"8h\"\nreminder = \"8h\"\n"), [
            "/etc/lifesignal/lifesignald.toml:3:12: check_in.reminder: reminder 8h must be shorter than the interval 8h",
        ])
    }

    func testOneHalfOfThePairTakesTheOtherFromTheDefault() throws {
        XCTAssertEqual(try loaded("[check_in]\ninterval = \"8h\"").configuredSettings,
                       CheckInSettings(interval: .seconds(8 * 3600), reminder: .seconds(2 * 3600)))
        XCTAssertEqual(try loaded("[check_in]\nreminder = \"4h\"").configuredSettings,
                       CheckInSettings(interval: .seconds(24 * 3600), reminder: .seconds(4 * 3600)))
        XCTAssertEqual(problems("[check_in]\ninterval = \"1h\""), [
            "/etc/lifesignal/lifesignald.toml:2:12: check_in.interval: reminder 2h must be shorter than the interval 1h "
                + "(reminder not set: the default 2h applies)",
        ])
    }

    func testShortIntervalsNeedDeveloperMode() throws {
        let text = "[check_in]\ninterval = \"20s\"\nreminder = \"5s\"\n"
        let refused = problems(text)
        XCTAssertEqual(refused.count, 1)
        XCTAssertTrue(refused[0].hasPrefix("/etc/lifesignal/lifesignald.toml:2:12: check_in.interval: interval 20s is not a whole number of minutes"), refused[0])
        XCTAssertTrue(refused[0].hasSuffix("need [developer] short_intervals = true"), refused[0])

        let developer = try loaded(text + "[developer]\nshort_intervals = true\n")
        XCTAssertEqual(developer.settingsPolicy, .developer)
        XCTAssertEqual(developer.configuredSettings, CheckInSettings(interval: .seconds(20), reminder: .seconds(5)))
    }

    func testIntervalOutsideEveryPolicyGetsNoDeveloperHint() {
        let refused = problems("[check_in]\ninterval = \"8d\"")
        XCTAssertEqual(refused.count, 1)
        XCTAssertTrue(refused[0].contains("check_in.interval: interval 8d is outside the allowed range 30m–7d"), refused[0])
        XCTAssertFalse(refused[0].contains("developer"), refused[0])
    }

    // MARK: Values

    func testNegativeDebounceIsImpossible() {
        XCTAssertEqual(problems("[button]\ndebounce = \"-30ms\""), [
            "/etc/lifesignal/lifesignald.toml:2:12: button.debounce: \"-30ms\" is negative, which is impossible; "
                + "expected a duration from 0s to 1s",
        ])
    }

    func testLongPressMustOutlastTheDebounce() throws {
        XCTAssertEqual(problems("[button]\ndebounce = \"1s\"\nlong_press = \"800ms\"\n"), [
            "/etc/lifesignal/lifesignald.toml:3:14: button.long_press: long_press 800ms must be longer than debounce 1s",
        ])
        XCTAssertEqual(try loaded("[button]\ndebounce = \"1s\"\nlong_press = \"1001ms\"\n").button.longPress, .milliseconds(1001))
    }

    func testDurationsOutOfRangeWrongTypeAndGarbage() {
        XCTAssertEqual(problems("""
            [button]
            long_press = "100ms"
            debounce = 30
            [feedback]
            acknowledgement = "soon"
            """), [
                "/etc/lifesignal/lifesignald.toml:2:14: button.long_press: \"100ms\" is out of range; expected a duration from 500ms to 30s",
                "/etc/lifesignal/lifesignald.toml:3:12: button.debounce: expected a duration from 0s to 1s in quotes, "
                    + "written as whole numbers with units d, h, m, s or ms, e.g. \"30ms\", \"1h30m\"; found the integer 30",
                "/etc/lifesignal/lifesignald.toml:5:19: feedback.acknowledgement: \"soon\" is not a duration; expected a duration "
                    + "from 200ms to 10s, written as whole numbers with units d, h, m, s or ms, e.g. \"30ms\", \"1h30m\"",
            ])
    }

    func testChoicesIntegersBooleansAndPaths() {
        let found = problems("""
            [gpio]
            backend = "gpiod"
            chip = ""
            [simulator]
            chatter_edges = 201
            terminal = true
            [log]
            level = "verbose"
            [developer]
            short_intervals = "yes"
            [store]
            path = "relative/db.sqlite"
            [control]
            socket = "/\(String(repeating: "s", count: 107))"
            """)
        XCTAssertEqual(found, [
            "/etc/lifesignal/lifesignald.toml:2:11: gpio.backend: \"gpiod\" is not allowed; expected one of \"simulated\", \"libgpiod\"",
            "/etc/lifesignal/lifesignald.toml:3:8: gpio.chip: expected a chip path, name or label such as \"gpiochip0\"; found an empty string",
            "/etc/lifesignal/lifesignald.toml:5:17: simulator.chatter_edges: 201 is out of range; expected a whole number from 0 to 200",
            "/etc/lifesignal/lifesignald.toml:6:12: simulator.terminal: expected one of \"auto\", \"on\", \"off\"; found the boolean true",
            "/etc/lifesignal/lifesignald.toml:8:9: log.level: \"verbose\" is not allowed; expected one of \"trace\", \"debug\", "
                + "\"info\", \"notice\", \"warning\", \"error\", \"critical\"",
            "/etc/lifesignal/lifesignald.toml:10:19: developer.short_intervals: expected true or false (without quotes); found the string \"yes\"",
            "/etc/lifesignal/lifesignald.toml:12:8: store.path: \"relative/db.sqlite\" is not an absolute path; "
                + "expected the store's database file starting with '/'",
            "/etc/lifesignal/lifesignald.toml:14:10: control.socket: the path is 108 bytes long; the control socket's path may be at most 107 bytes",
        ])
    }

    func testEveryProblemNamesFileLineAndKey() {
        // One mistake per line 2...n; each problem must carry its own line and the full key.
        let mistakes: [(table: String, key: String, value: String)] = [
            ("check_in", "reminder", "\"-1h\""), ("button", "debounce", "\"2s\""), ("button", "long_press", "3"),
            ("button", "line", "-1"), ("button", "active_low", "1"), ("button", "bias", "\"up\""),
            ("gpio", "backend", "\"real\""), ("gpio", "chip", "0"), ("leds", "order", "\"green\""),
            ("feedback", "acknowledgement", "\"11s\""), ("store", "path", "\"db\""), ("control", "socket", "\"sock\""),
            ("simulator", "chatter_edges", "-1"), ("simulator", "chatter_span", "\"2s\""), ("simulator", "terminal", "\"yes\""),
            ("log", "level", "\"loud\""), ("developer", "short_intervals", "\"no\""),
        ]
        var text = ""
        var expected: [(line: Int, key: String)] = []
        var lineNumber = 0
        for (table, key, value) in mistakes {
            text += "[\(table)]\n\(key) = \(value)\n"
            lineNumber += 2
            expected.append((lineNumber, table + "." + key))
        }
        // Tables may appear once only: merge repeated headers.
        var seen = Set<String>()
        text = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            guard line.hasPrefix("[") else { return String(line) }
            return seen.insert(String(line)).inserted ? String(line) : "# (same table)"
        }.joined(separator: "\n")
        let found = problems(text)
        XCTAssertEqual(found.count, mistakes.count, found.joined(separator: "\n"))
        for ((line, key), description) in zip(expected, found) {
            let prefix = "/etc/lifesignal/lifesignald.toml:\(line):"
            XCTAssertTrue(description.hasPrefix(prefix), "\(description) should start with \(prefix)")
            XCTAssertTrue(description.contains(": \(key): "), "\(description) should name \(key)")
        }
    }

    // MARK: Unknown names

    func testUnknownKeysAndTablesSuggestTheLikelyTypo() {
        XCTAssertEqual(problems("""
            [buton]
            line = 1
            [button]
            debounse = "30ms"
            [leds.green]
            color = "lime"
            [patterns.checkedin]
            [leds.gren]
            [check_in]
            period = "8h"
            """), [
                "/etc/lifesignal/lifesignald.toml:1:1: buton: unknown table [buton]; known tables are check_in, button, gpio, "
                    + "leds, patterns, feedback, store, control, simulator, log, developer, uplink, alert, healthchecks, mqtt, away, "
                    + "quiet_hours, buzzer, power, device, dependents; did you mean 'button'?",
                "/etc/lifesignal/lifesignald.toml:4:1: button.debounse: unknown key; [button] may contain debounce, long_press, "
                    + "line, active_low, bias; did you mean 'debounce'?",
                "/etc/lifesignal/lifesignald.toml:6:1: leds.green.color: unknown key; [leds.green] may contain colour, line, "
                    + "active_low; did you mean 'colour'?",
                "/etc/lifesignal/lifesignald.toml:7:1: patterns.checkedin: unknown indicator 'checkedin'; indicators are starting, "
                    + "never_checked_in, checked_in, reminder, overdue, fault, acknowledged, long_press, ping_pending, "
                    + "alert_cancel_window, alert_sending, alert_delivered, checked_in_not_uploaded, reminder_not_uploaded, last_chance, away, on_battery, "
                    + "identify, help_coming, dependent_help_alert, dependent_overdue, dependent_silent, dependent_reminder, dependents_unknown, "
                    + "dependents_ok, ping_confirm; "
                    + "did you mean 'checked_in'?",
                "/etc/lifesignal/lifesignald.toml:8:1: leds.gren: there is no LED 'gren' in leds.order (green, amber, red); "
                    + "add it to leds.order or remove this table; did you mean 'green'?",
                "/etc/lifesignal/lifesignald.toml:10:1: check_in.period: unknown key; [check_in] may contain interval, reminder, "
                + "grace, schedule, windows, time_zone, monday, tuesday, wednesday, thursday, friday, saturday, sunday",
            ])
    }

    func testKeysOutsideTablesAndDeepTables() {
        XCTAssertEqual(problems("interval = \"8h\"\nlevl = \"info\"\n[leds.green.extra]\n"), [
            "/etc/lifesignal/lifesignald.toml:1:1: interval: every key must be under a [table] header; put it under [check_in]",
            "/etc/lifesignal/lifesignald.toml:2:1: levl: every key must be under a [table] header; did you mean 'log.level'?",
            "/etc/lifesignal/lifesignald.toml:3:1: leds.green.extra: unknown table [leds.green.extra]; tables are check_in, "
                + "button, gpio, leds, patterns, feedback, store, control, simulator, log, developer, uplink, alert, healthchecks, mqtt, "
                + "away, quiet_hours, buzzer, power, device, dependents, leds.<LED name>, "
                + "patterns.<indicator> and dependents.<name>",
        ])
    }

    func testSyntaxErrorsCarryThePath() {
        XCTAssertEqual(problems("[button]\ndebounce = 1.5\n"), [
            "/etc/lifesignal/lifesignald.toml:2:12: floating-point numbers are not supported; write a whole number",
        ])
    }

    // MARK: GPIO lines and LEDs

    func testTheSameLineTwiceIsRejectedNamingBothKeys() {
        XCTAssertEqual(problems("[button]\nline = \"GPIO5\"\n"), [
            "/etc/lifesignal/lifesignald.toml:2:8: button.line: line GPIO5 is also used by leds.green.line (its default); "
                + "each GPIO line may serve only one role (the button or one LED)",
        ])
        XCTAssertEqual(problems("[leds.red]\nline = \"GPIO6\"\n"), [
            "/etc/lifesignal/lifesignald.toml:2:8: leds.red.line: line GPIO6 is also used by leds.amber.line (its default); "
                + "each GPIO line may serve only one role (the button or one LED)",
        ])
        XCTAssertEqual(problems("[button]\nline = 17\n[leds.amber]\nline = \"17\"\n"), [
            "/etc/lifesignal/lifesignald.toml:4:8: leds.amber.line: line offset 17 is also used by button.line (line 2); "
                + "each GPIO line may serve only one role (the button or one LED)",
        ])
    }

    func testLineOffsetsMustBePossible() {
        XCTAssertEqual(problems("[button]\nline = -3\n[leds.red]\nline = 5000\n"), [
            "/etc/lifesignal/lifesignald.toml:2:8: button.line: line offset -3 is negative, which is impossible; "
                + "expected a line name such as \"GPIO17\" or an offset from 0 to 1023",
            "/etc/lifesignal/lifesignald.toml:4:8: leds.red.line: line offset 5000 is out of range; "
                + "expected a line name such as \"GPIO17\" or an offset from 0 to 1023",
        ])
    }

    func testAnExtraLEDMustGiveItsLine() throws {
        XCTAssertEqual(problems("[leds]\norder = [\"green\", \"amber\", \"red\", \"blue\"]\n"), [
            "/etc/lifesignal/lifesignald.toml:2:35: leds.blue.line: LED 'blue' has no default line: set line = \"GPIO<n>\" under [leds.blue]",
        ])
        let configuration = try loaded("[leds]\norder = [\"green\", \"amber\", \"red\", \"blue\"]\n[leds.blue]\nline = \"GPIO26\"\n")
        XCTAssertEqual(configuration.leds.last, LEDWiring(led: LED(name: "blue", colour: "blue"), line: .name("GPIO26")))
        XCTAssertEqual(configuration.ledLanguage.leds.map(\.name), ["green", "amber", "red", "blue"])
        XCTAssertEqual(configuration.ledLanguage.patterns, LEDLanguage.standard.patterns)
    }

    func testBadLEDOrders() {
        XCTAssertEqual(problems("[leds]\norder = [\"green\", \"green\", 3, \"a b\"]\n"), [
            "/etc/lifesignal/lifesignald.toml:2:19: leds.order: LED 'green' is listed twice; every LED appears once",
            "/etc/lifesignal/lifesignald.toml:2:28: leds.order: expected an array of LED names such as [\"green\", \"amber\", \"red\"]; found the integer 3",
            "/etc/lifesignal/lifesignald.toml:2:31: leds.order: \"a b\" is not a usable LED name; use letters, digits, '_' and '-'",
        ])
        XCTAssertEqual(problems("[leds]\norder = []\n"), [
            "/etc/lifesignal/lifesignald.toml:2:9: leds.order: 0 LEDs; expected 1 to 16 LED names",
        ])
    }

    // MARK: Patterns

    func testPatternsReplaceOneIndicator() throws {
        let configuration = try loaded("[patterns.overdue]\nred = \"200ms on, 200ms off\"\namber = \"on\"\n")
        XCTAssertEqual(configuration.ledLanguage.pattern(for: .overdue),
                       LEDPattern(["red": .blink(on: .milliseconds(200), off: .milliseconds(200)), "amber": .on]))
        XCTAssertEqual(configuration.ledLanguage.pattern(for: .checkedIn), LEDLanguage.standard.pattern(for: .checkedIn))
    }

    func testRemovingAnLEDThatStandardPatternsUseIsRejected() throws {
        XCTAssertEqual(problems("[leds]\norder = [\"green\", \"red\"]\n"), [
            "/etc/lifesignal/lifesignald.toml:2:9: leds.order: the standard patterns of never_checked_in (uses amber), "
                + "reminder (uses amber), fault (uses amber), long_press (uses amber), ping_pending (uses amber), "
                + "alert_cancel_window (uses amber), alert_sending (uses amber), reminder_not_uploaded (uses amber), last_chance (uses amber) need LEDs "
                + "that leds.order leaves out; add a "
                + "[patterns.<indicator>] table for each, using only green, red",
        ])
        let configuration = try loaded("""
            [leds]
            order = ["green", "red"]
            [patterns.never_checked_in]
            red = "500ms on, 1500ms off"
            [patterns.reminder]
            green = "500ms on, 500ms off"
            [patterns.fault]
            red = "100ms on, 100ms off"
            [patterns.long_press]
            green = "on"
            red = "on"
            [patterns.ping_pending]
            green = "200ms on, 200ms off, 200ms on, 1400ms off"
            [patterns.alert_cancel_window]
            green = "250ms on, 250ms off"
            red = "250ms on, 250ms off"
            [patterns.alert_sending]
            red = "on"
            green = "100ms on, 900ms off"
            [patterns.reminder_not_uploaded]
            green = "500ms on, 1500ms off"
            [patterns.alert_delivered]
            red = "on"
            green = "1000ms on, 1000ms off"
            [patterns.last_chance]
            red = "150ms on, 150ms off"
            """)
        XCTAssertEqual(configuration.ledLanguage.leds.map(\.name), ["green", "red"])
        // A config from before identify existed: identify runs along the LEDs there are.
        XCTAssertEqual(configuration.ledLanguage.pattern(for: .identify), LEDLanguage.identifyPattern(over: ["green", "red"]))
    }

    func testPatternsNamingUnknownLEDsOrIndicatorsOrBadWaveforms() {
        XCTAssertEqual(problems("""
            [leds]
            order = ["green", "red"]
            [patterns.never_checked_in]
            amber = "on"
            [patterns.reminder]
            gren = "on"
            [patterns.fault]
            red = "fast"
            green = 1
            [patterns.sleeping]
            [patterns.long_press]
            green = "on"
            [patterns.ping_pending]
            red = "200ms on, 200ms off, 200ms on, 1400ms off"
            """), [
                "/etc/lifesignal/lifesignald.toml:2:9: leds.order: the standard patterns of alert_cancel_window (uses amber), "
                    + "alert_sending (uses amber), reminder_not_uploaded (uses amber), last_chance (uses amber) need LEDs that leds.order leaves out; "
                    + "add a [patterns.<indicator>] table for each, using only green, red",
                "/etc/lifesignal/lifesignald.toml:4:1: patterns.never_checked_in.amber: no LED named 'amber' (leds.order leaves it out); the LEDs are green, red",
                "/etc/lifesignal/lifesignald.toml:6:1: patterns.reminder.gren: no LED named 'gren'; the LEDs are green, red; did you mean 'green'?",
                "/etc/lifesignal/lifesignald.toml:8:7: patterns.fault.red: 'fast' is not a step: write '<milliseconds>ms on' or "
                    + "'<milliseconds>ms off', e.g. \"500ms on, 500ms off\", or just \"on\" / \"off\"",
                "/etc/lifesignal/lifesignald.toml:9:9: patterns.fault.green: expected a pattern in quotes such as \"on\", \"off\" or "
                    + "\"500ms on, 500ms off\"; found the integer 1",
                "/etc/lifesignal/lifesignald.toml:10:1: patterns.sleeping: unknown indicator 'sleeping'; indicators are starting, "
                    + "never_checked_in, checked_in, reminder, overdue, fault, acknowledged, long_press, ping_pending, "
                    + "alert_cancel_window, alert_sending, alert_delivered, checked_in_not_uploaded, reminder_not_uploaded, last_chance, away, on_battery, "
                    + "identify, help_coming, dependent_help_alert, dependent_overdue, dependent_silent, dependent_reminder, dependents_unknown, "
                    + "dependents_ok, ping_confirm",
            ])
    }

    func testIndicatorsMustLightSomethingAndLookDifferent() throws {
        XCTAssertEqual(problems("[patterns.overdue]\nred = \"off\"\n[patterns.reminder]\ngreen = \"on\"\n"), [
            "/etc/lifesignal/lifesignald.toml:1:1: patterns.overdue: this pattern lights no LED; every indicator except "
                + "'starting' must light at least one, or the device would look switched off",
            "/etc/lifesignal/lifesignald.toml:3:1: patterns.reminder: looks exactly like patterns.checked_in; every indicator "
                + "must look different, or a person could not tell them apart",
        ])
        // `starting` may be dark, or lit.
        XCTAssertEqual(try loaded("[patterns.starting]\ngreen = \"100ms on, 100ms off\"\namber = \"on\"\n")
            .ledLanguage.pattern(for: .starting).waveforms.count, 2)
    }

    // MARK: Environment

    func testDefaultPathsFollowTheEnvironment() {
        typealias Config = DeviceConfiguration
        XCTAssertEqual(Config.defaultStorePath(environment: ["STATE_DIRECTORY": "/var/lib/lifesignal:/var/lib/other",
                                                             "XDG_STATE_HOME": "/x", "HOME": "/h"]),
                       "/var/lib/lifesignal/lifesignal.sqlite")
        XCTAssertEqual(Config.defaultStorePath(environment: ["XDG_STATE_HOME": "/x/", "HOME": "/h"]), "/x/lifesignal/lifesignal.sqlite")
        XCTAssertEqual(Config.defaultStorePath(environment: ["STATE_DIRECTORY": "", "XDG_STATE_HOME": "rel", "HOME": "/h"]),
                       "/h/.local/state/lifesignal/lifesignal.sqlite")
        XCTAssertNil(Config.defaultStorePath(environment: [:]))

        XCTAssertEqual(Config.defaultControlSocket(environment: ["RUNTIME_DIRECTORY": "/run/lifesignal", "XDG_RUNTIME_DIR": "/run/user/1"]),
                       "/run/lifesignal/control.sock")
        XCTAssertEqual(Config.defaultControlSocket(environment: ["XDG_RUNTIME_DIR": "/run/user/1000", "USER": "ada"]),
                       "/run/user/1000/lifesignal/control.sock")
        XCTAssertEqual(Config.defaultControlSocket(environment: ["USER": "ada"]), "/tmp/lifesignal-ada/control.sock")
        XCTAssertEqual(Config.defaultControlSocket(environment: ["USER": "../etc", "UID": "1000"]), "/tmp/lifesignal-1000/control.sock")
        XCTAssertEqual(Config.defaultControlSocket(environment: [:]), "/tmp/lifesignal/control.sock")
    }

    func testEnvironmentOverridesTheFile() throws {
        let text = "[store]\npath = \"/file/db.sqlite\"\n[control]\nsocket = \"/file/sock\"\n[gpio]\nbackend = \"simulated\"\n[log]\nlevel = \"info\"\n"
        let environment = Self.environment.merging([
            "LIFESIGNAL_STORE_PATH": "/env/db.sqlite", "LIFESIGNAL_SOCKET": "/env/sock",
            "LIFESIGNAL_GPIO_BACKEND": "libgpiod", "LIFESIGNAL_LOG_LEVEL": "debug",
        ]) { $1 }
        let configuration = try loaded(text, environment: environment)
        XCTAssertEqual(configuration.storePath, "/env/db.sqlite")
        XCTAssertEqual(configuration.controlSocket, "/env/sock")
        XCTAssertEqual(configuration.gpio.backend, .libgpiod)
        XCTAssertEqual(configuration.logLevel, .debug)

        let fileOnly = try loaded(text, environment: Self.environment.merging(["LIFESIGNAL_LOG_LEVEL": ""]) { $1 })
        XCTAssertEqual(fileOnly.storePath, "/file/db.sqlite")
        XCTAssertEqual(fileOnly.logLevel, .info)

        let systemd = try loaded(nil, environment: ["STATE_DIRECTORY": "/var/lib/lifesignal", "RUNTIME_DIRECTORY": "/run/lifesignal"])
        XCTAssertEqual(systemd.storePath, "/var/lib/lifesignal/lifesignal.sqlite")
        XCTAssertEqual(systemd.controlSocket, "/run/lifesignal/control.sock")
    }

    func testBadEnvironmentValuesNameTheVariable() {
        let environment = Self.environment.merging([
            "LIFESIGNAL_STORE_PATH": "db.sqlite", "LIFESIGNAL_SOCKET": "/\(String(repeating: "x", count: 200))",
            "LIFESIGNAL_GPIO_BACKEND": "gpio", "LIFESIGNAL_LOG_LEVEL": "Debug",
        ]) { $1 }
        XCTAssertEqual(problems("[log]\nlevel = \"loud\"\n", environment: environment), [
            "/etc/lifesignal/lifesignald.toml:2:9: log.level: \"loud\" is not allowed; expected one of \"trace\", \"debug\", "
                + "\"info\", \"notice\", \"warning\", \"error\", \"critical\"",
            "environment variable LIFESIGNAL_STORE_PATH: store.path: \"db.sqlite\" is not an absolute path; expected the "
                + "store's database file starting with '/' (this variable overrides store.path)",
            "environment variable LIFESIGNAL_SOCKET: control.socket: the path is 201 bytes long; the control socket's path "
                + "may be at most 107 bytes (this variable overrides control.socket)",
            "environment variable LIFESIGNAL_GPIO_BACKEND: gpio.backend: \"gpio\" is not allowed; expected one of "
                + "\"simulated\", \"libgpiod\" (this variable overrides gpio.backend)",
            "environment variable LIFESIGNAL_LOG_LEVEL: log.level: \"Debug\" is not allowed; expected one of \"trace\", "
                + "\"debug\", \"info\", \"notice\", \"warning\", \"error\", \"critical\"; did you mean 'debug'? "
                + "(this variable overrides log.level)",
        ])
    }

    func testNoUsableStoreLocationIsAProblemNotAGuess() {
        XCTAssertEqual(problems(nil, environment: [:]), [
            "environment variable HOME: store.path: cannot choose the store's location: none of STATE_DIRECTORY, "
                + "XDG_STATE_HOME or HOME holds an absolute path; set [store] path or LIFESIGNAL_STORE_PATH",
        ])
    }
}
