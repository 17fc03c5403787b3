import CheckInModels
import DeviceConfig
import XCTest

/// `[check_in] grace`, `schedule`, `windows`, the weekdays and `time_zone`; `[away]`;
/// `[quiet_hours]`; `[buzzer]`; `[power]`: every bad value refused with file:line:key and what is
/// allowed, every key at its default when absent.
final class DailyLifeConfigTests: XCTestCase {
    static let path = "/etc/lifesignal/lifesignald.toml"

    private func problems(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> [String] {
        switch DeviceConfiguration.load(text: text, path: Self.path, environment: ["HOME": "/home/ada"]) {
        case let .success(configuration):
            XCTFail("expected problems, loaded \(configuration)", file: file, line: line)
            return []
        case let .failure(errors):
            return errors.problems.map(\.description)
        }
    }

    func testTheDefaults() throws {
        let configuration = try DeviceConfiguration.load(text: nil, path: Self.path, environment: ["HOME": "/home/ada"]).get()
        XCTAssertEqual(configuration.grace, .seconds(15 * 60))
        XCTAssertEqual(configuration.schedule, .interval)
        XCTAssertNil(configuration.timeZone)
        XCTAssertTrue(configuration.awayPressEnds)
        XCTAssertNil(configuration.quietHours)
        XCTAssertNil(configuration.buzzer)
        XCTAssertEqual(configuration.power, PowerConfiguration())
    }

    func testScheduleAndWindowsAreRefusedWithTheirPlace() {
        XCTAssertEqual(problems("""
            [check_in]
            grace = "3h"
            schedule = "weekly"
            """), [
                "\(Self.path):2:9: check_in.grace: \"3h\" is out of range; expected a duration from 0s to 2h",
                "\(Self.path):3:12: check_in.schedule: \"weekly\" is not allowed; expected one of \"interval\", \"daily\"",
            ])
        XCTAssertEqual(problems("[check_in]\nschedule = \"daily\"\n"), [
            "\(Self.path):2:1: check_in.windows: schedule = \"daily\" needs windows, e.g. windows = [\"07:00-10:00\"]",
        ])
        XCTAssertEqual(problems("[check_in]\nwindows = [\"07:00-10:00\"]\n"), [
            "\(Self.path):2:1: check_in.windows: windows apply only with schedule = \"daily\" (now \"interval\")",
        ])
        XCTAssertEqual(problems("""
            [check_in]
            schedule = "daily"
            windows = ["07:00-10:00", "09:00-11:00"]
            monday = ["7am-10am"]
            tuesday = ["10:00-07:00"]
            wednesday = ["01:00-02:00", "03:00-04:00", "05:00-06:00", "07:00-08:00", "09:00-10:00"]
            thursday = "07:00-10:00"
            """), [
                "\(Self.path):3:11: check_in.windows: the windows 07:00-10:00 and 09:00-11:00 overlap",
                "\(Self.path):4:11: check_in.monday: \"7am\" is not a time of day; write HH:MM on the 24-hour clock, e.g. 07:00",
                "\(Self.path):5:12: check_in.tuesday: the window \"10:00-07:00\" ends before it starts; a window lies within one "
                    + "day (use two windows, …-24:00 and 00:00-…, for one across midnight)",
                "\(Self.path):6:13: check_in.wednesday: 5 windows; a day has 1 to 4 ([] asks for no check-in that day)",
                "\(Self.path):7:12: check_in.thursday: expected an array of windows in quotes, e.g. [\"07:00-10:00\", \"18:00-20:00\"]; "
                    + "found the string \"07:00-10:00\"",
            ])
    }

    func testAZoneIsANameThatTheSystemMustHave() {
        XCTAssertEqual(problems("[check_in]\ntime_zone = \"../etc/passwd\"\n"), [
            "\(Self.path):2:13: check_in.time_zone: \"../etc/passwd\" is not a zone name; expected an IANA time zone name such as "
                + "\"Europe/London\" or \"America/New_York\" (leave the key out for the system's zone)",
        ])
        let text = "[check_in]\ntime_zone = \"Europe/Londn\"\n"
        let found = ConfigurationFile.load(explicitPath: Self.path, environment: ["HOME": "/home/ada"], read: { _ in .success(Array(text.utf8)) },
                                           zoneExists: { $0 == "Europe/London" })
        guard case let .failure(failure) = found else { return XCTFail("a zone the system lacks must be refused") }
        XCTAssertEqual(failure.message, "\(Self.path):2:13: check_in.time_zone: \"Europe/Londn\" is not a time zone this system knows "
            + "(no such file under /usr/share/zoneinfo); use a name from `timedatectl list-timezones`, or install the tzdata package")
        let good = "[check_in]\ntime_zone = \"Europe/London\"\n"
        let loaded = ConfigurationFile.load(explicitPath: Self.path, environment: ["HOME": "/home/ada"], read: { _ in .success(Array(good.utf8)) },
                                            zoneExists: { $0 == "Europe/London" })
        XCTAssertEqual(try? loaded.get().configuration.timeZone, "Europe/London")
    }

    func testQuietHoursBuzzerAndPowerAreRefusedWithTheirPlace() {
        XCTAssertEqual(problems("""
            [away]
            press_ends = "yes"
            [quiet_hours]
            from = "22:00"
            [buzzer]
            line = "GPIO13"
            last_chance = "beep"
            [power]
            mains_line = "GPIO17"
            low_battery_active_low = true
            """), [
                "\(Self.path):2:14: away.press_ends: expected true or false (without quotes); found the string \"yes\"",
                "\(Self.path):4:1: quiet_hours.to: quiet hours need both from and to, e.g. from = \"22:00\", to = \"07:00\"",
                "\(Self.path):6:8: buzzer.line: GPIO13 is already leds.red.line; give every LED, the button, the buzzer and each "
                    + "input its own line",
                "\(Self.path):7:15: buzzer.last_chance: 'beep' is not a step: write '<milliseconds>ms on' or '<milliseconds>ms off', "
                    + "e.g. \"500ms on, 500ms off\", or just \"on\" / \"off\"",
                "\(Self.path):9:14: power.mains_line: GPIO17 is already button.line; give every LED, the button, the buzzer and each "
                    + "input its own line",
                "\(Self.path):10:1: power.low_battery_active_low: low_battery_line is not set: set it or remove this key",
            ])
        XCTAssertEqual(problems("[quiet_hours]\nfrom = \"22:00\"\nto = \"22:00\"\n[buzzer]\nactive_low = true\n"), [
            "\(Self.path):3:1: quiet_hours.to: from and to are both 22:00: leave both out for no quiet hours",
            "\(Self.path):5:1: buzzer.active_low: no [buzzer] line is set: set line = \"GPIO<n>\" or remove this key",
        ])
    }
}
