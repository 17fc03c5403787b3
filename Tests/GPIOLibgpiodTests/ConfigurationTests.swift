@testable import GPIOLibgpiod
import XCTest

final class ConfigurationTests: XCTestCase {
    func testChipSelectorParsing() {
        XCTAssertEqual(ChipSelector(parsing: "/dev/gpiochip0"), .path("/dev/gpiochip0"))
        XCTAssertEqual(ChipSelector(parsing: "gpiochip4"), .nameOrLabel("gpiochip4"))
        XCTAssertEqual(ChipSelector(parsing: "pinctrl-rp1"), .nameOrLabel("pinctrl-rp1"))
    }

    func testLineSelectorParsing() {
        XCTAssertEqual(LineSelector(parsing: "17"), .offset(17))
        XCTAssertEqual(LineSelector(parsing: "GPIO17"), .name("GPIO17"))
        XCTAssertEqual(LineSelector(parsing: "-1"), .name("-1"))
        XCTAssertEqual(LineSelector(parsing: "99999999999"), .name("99999999999"), "too big for an offset")
    }

    func testDefaultsSuitAButtonToGround() {
        let button = LibgpiodConfiguration.Button(line: .name("GPIO17"))
        XCTAssertTrue(button.activeLow)
        XCTAssertEqual(button.bias, .pullUp)
        let config = LibgpiodConfiguration(chip: .nameOrLabel("gpiochip0"), button: button, leds: [])
        XCTAssertEqual(config.consumer, "lifesignald")
    }

    func testMicrosecondsForKernelDebounce() {
        XCTAssertEqual(Duration.milliseconds(30).microseconds, 30_000)
        XCTAssertEqual(Duration.seconds(2).microseconds, 2_000_000)
        XCTAssertEqual(Duration.nanoseconds(1500).microseconds, 1)
    }
}
