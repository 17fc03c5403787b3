import SimulatorTerminal
import XCTest

final class StatusLineTests: XCTestCase {
    func testPlainLineShowsEachLEDThenTheCaption() {
        let line = StatusLine.render(
            levels: [true, false, true], colors: [.green, .amber, .red],
            caption: "checked in · deadline in 23 h 59 min", useColor: false
        )
        XCTAssertEqual(line, "● ○ ●  checked in · deadline in 23 h 59 min")
    }

    func testColoursFollowTheConfiguredNames() {
        let line = StatusLine.render(
            levels: [true, false, true, true], colors: [.green, .amber, .red], caption: "", useColor: true
        )
        let esc = "\u{1B}"
        XCTAssertEqual(line, [
            "\(esc)[1;32m●\(esc)[0m",  // green, lit
            "\(esc)[2;33m○\(esc)[0m",  // amber drawn as dim yellow when dark
            "\(esc)[1;31m●\(esc)[0m",  // red
            "\(esc)[1;39m●\(esc)[0m",  // no colour configured: terminal default
        ].joined(separator: " "))
    }

    func testLongCaptionIsShortenedSoTheLineNeverWraps() {
        let caption = String(repeating: "overdue ", count: 20)
        let line = StatusLine.render(levels: [false, true], colors: [.red, .amber], caption: caption,
                                     width: 30, useColor: false)

        XCTAssertEqual(line.count, 29, "one column left free")
        XCTAssertTrue(line.hasPrefix("○ ●  overdue"))
        XCTAssertTrue(line.hasSuffix("…"))
    }

    func testCaptionThatFitsIsUntouched() {
        let line = StatusLine.render(levels: [true], colors: [.green], caption: "ok", width: 80, useColor: false)
        XCTAssertEqual(line, "●  ok")
    }

    func testColourNamesFromConfiguration() {
        XCTAssertEqual(LEDColor(configName: "green"), .green)
        XCTAssertEqual(LEDColor(configName: "Amber"), .amber)
        XCTAssertEqual(LEDColor(configName: "YELLOW"), .yellow)
        XCTAssertEqual(LEDColor(configName: "red"), .red)
        XCTAssertEqual(LEDColor(configName: "blue"), .blue)
        XCTAssertEqual(LEDColor(configName: "white"), .white)
        XCTAssertEqual(LEDColor(configName: "infrared"), .default)
    }

    func testKeys() {
        XCTAssertEqual(KeyCommand(byte: UInt8(ascii: " ")), .shortPress)
        XCTAssertEqual(KeyCommand(byte: UInt8(ascii: "\r")), .shortPress)
        XCTAssertEqual(KeyCommand(byte: UInt8(ascii: "l")), .longPress)
        XCTAssertEqual(KeyCommand(byte: UInt8(ascii: "q")), .quit)
        XCTAssertEqual(KeyCommand(byte: 0x03), .quit, "Ctrl-C arrives as a byte in raw mode")
        XCTAssertNil(KeyCommand(byte: UInt8(ascii: "x")))
        XCTAssertNil(KeyCommand(byte: 0x1B))
    }
}
