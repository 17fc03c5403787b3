import DeviceConfig
import XCTest

/// Values a mistaken or hostile file can hold: refused with a message that names the key and is
/// safe to print on a terminal.
final class HostileInputTests: XCTestCase {
    private func problems(_ text: String, environment: [String: String] = ["HOME": "/home/ada"]) -> [String] {
        switch DeviceConfiguration.load(text: text, path: "/etc/lifesignal/lifesignald.toml", environment: environment) {
        case .success(let configuration):
            XCTFail("expected problems, loaded \(configuration)")
            return []
        case .failure(let errors):
            return errors.problems.map(\.description)
        }
    }

    func testADurationNamesEachUnitOnceLargestFirst() {
        // "12h12h" used to load as 24 h, "30m1h" as 1 h 30 min.
        XCTAssertEqual(problems("""
            [check_in]
            interval = "12h12h"
            reminder = "30m1h"
            """), [
                "/etc/lifesignal/lifesignald.toml:2:12: check_in.interval: \"12h12h\" is not a duration: the unit h appears "
                    + "twice; write each unit once, largest first, e.g. 1h30m",
                "/etc/lifesignal/lifesignald.toml:3:12: check_in.reminder: \"30m1h\" is not a duration: h comes after m; "
                    + "write the units largest first (d, h, m, s, ms), e.g. 1h30m",
            ])
    }

    func testControlCharactersInValuesAreEscapedInMessages() {
        // A basic string may carry any character as an escape; echoed raw, ESC [ 2 J clears the
        // terminal and ESC ] rewrites its title.
        let found = problems("""
            [check_in]
            interval = "\\u001b[2J\\u001b]0;owned\\u0007"
            [gpio]
            backend = "\\u009b31m"
            [leds.green]
            line = "GPIO\\u000d27"
            """)
        XCTAssertEqual(found.count, 3, found.joined(separator: "\n"))
        for message in found {
            XCTAssertFalse(message.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) },
                           "raw control character in: \(message.debugDescription)")
        }
        XCTAssertTrue(found[0].contains("\"\\u001B[2J\\u001B]0;owned\\u0007\" is not a duration"), found[0])
        XCTAssertTrue(found[1].contains("\"\\u009B31m\" is not allowed"), found[1])
    }

    func testControlCharactersInTheEnvironmentAndThePathAreEscaped() {
        let problems = DeviceConfiguration.load(
            text: "[log]\nlevel = \"loud\"\n", path: "/etc/\u{1B}[31mlifesignald.toml",
            environment: ["HOME": "/home/ada", "LIFESIGNAL_GPIO_BACKEND": "\u{1B}[5m"])
        guard case let .failure(errors) = problems else { return XCTFail("loaded") }
        let text = errors.description
        XCTAssertFalse(text.contains("\u{1B}"), text.debugDescription)
        XCTAssertTrue(text.contains("/etc/\\u001B[31mlifesignald.toml:2:9"), text)
        XCTAssertTrue(text.contains("\"\\u001B[5m\" is not allowed"), text)
    }

    func testBytesThatAreNotUTF8AreRefusedWithTheirPlace() {
        func problem(_ bytes: [UInt8]) -> String? {
            guard case let .failure(errors) = DeviceConfiguration.load(
                contents: bytes, path: "/etc/l.toml", environment: ["HOME": "/home/ada"]) else { return nil }
            return errors.description
        }
        let prefix = Array("[log]\nlevel = \"".utf8)  // the value starts at line 2, column 10, offset 15
        XCTAssertEqual(problem(prefix + [0xC3] + Array("\"\n".utf8)),
                       "/etc/l.toml:2:10: the file is not valid UTF-8 at byte offset 15 (0xC3); save it as UTF-8",
                       "a sequence cut short")
        XCTAssertEqual(problem(prefix + [0xC0, 0xAF]),
                       "/etc/l.toml:2:10: the file is not valid UTF-8 at byte offset 15 (0xC0); save it as UTF-8",
                       "an overlong '/'")
        XCTAssertEqual(problem(prefix + [0xED, 0xA0, 0x80]),
                       "/etc/l.toml:2:10: the file is not valid UTF-8 at byte offset 15 (0xED); save it as UTF-8",
                       "a surrogate")
        XCTAssertEqual(problem(Array("# é 🙂\n".utf8) + [0x80]),
                       "/etc/l.toml:2:1: the file is not valid UTF-8 at byte offset 10 (0x80); save it as UTF-8",
                       "a continuation byte alone, after valid multi-byte characters")
        // Valid UTF-8 loads, multi-byte characters and all.
        XCTAssertNil(problem(Array("# Grüße 🙂\n[log]\nlevel = \"info\"\n".utf8)))
    }
}
