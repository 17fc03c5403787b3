import Glibc
import GPIOClient
import Logging
@testable import GPIOLibgpiod
import TestSupport
import XCTest

/// Failures that need no GPIO chip: run on any machine, with either libgpiod.
final class LibgpiodErrorTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var scratch: String { directory.path }

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "gpiolibgpiod-test")
    }

    override func tearDown() {
        directory = nil
    }

    /// The GPIOError thrown by `body`; nil (failing the caller's assertions) if none or another.
    private func catchError(_ body: () throws -> Void) -> GPIOError? {
        do { try body() } catch { return error as? GPIOError }
        return nil
    }

    func testBuiltAgainstTheLibraryItRunsWith() {
        let major = LibgpiodLibrary.version.split(separator: ".").first.flatMap { Int($0) }
        XCTAssertEqual(major, LibgpiodLibrary.apiMajor)
        XCTAssertEqual(LibgpiodLibrary.hasKernelDebounce, LibgpiodLibrary.apiMajor >= 2)
    }

    func testMissingChipSaysNoneArePresent() {
        let error = catchError { _ = try ChipDirectory(directory: scratch).open(.nameOrLabel("pinctrl-rp1")) }
        XCTAssertEqual(error?.operation, LibgpiodOperation.findChip)
        XCTAssertEqual(error?.isChipMissing, true)
        XCTAssertEqual(error?.target, "chip 'pinctrl-rp1'")
        XCTAssertTrue(error?.reason.contains("no GPIO chips present") ?? false, "\(String(describing: error))")
    }

    func testMissingChipListsTheChipsThatExist() throws {
        // Not a GPIO chip: opening it fails, and the message shows why next to its path.
        let fake = "\(scratch)/gpiochip0"
        let descriptor = creat(fake, 0o600)
        XCTAssertGreaterThanOrEqual(descriptor, 0)
        close(descriptor)
        let error = catchError { _ = try ChipDirectory(directory: scratch).open(.label("pinctrl-rp1")) }
        XCTAssertEqual(error?.isChipMissing, true)
        XCTAssertTrue(error?.reason.contains("chips present: \(fake) (") ?? false, "\(String(describing: error))")
    }

    func testMissingPathIsAMissingChip() {
        let error = catchError { _ = try ChipDirectory(directory: scratch).open(.path("\(scratch)/gpiochip7")) }
        XCTAssertEqual(error?.isChipMissing, true)
        XCTAssertEqual(error?.target, "\(scratch)/gpiochip7")
    }

    func testChipPathsAreInNumericOrder() {
        for name in ["gpiochip10", "gpiochip2", "gpiochip0", "ttyS0"] {
            let descriptor = creat("\(scratch)/\(name)", 0o600)
            XCTAssertGreaterThanOrEqual(descriptor, 0)
            close(descriptor)
        }
        XCTAssertEqual(
            ChipDirectory(directory: scratch).chipPaths(),
            ["gpiochip0", "gpiochip2", "gpiochip10"].map { "\(scratch)/\($0)" })
        unlink("\(scratch)/ttyS0")
    }

    func testOpeningSomethingThatIsNotAChipCarriesErrnoText() {
        let error = catchError { _ = try GPIOChip(path: "/dev/null") }
        XCTAssertEqual(error?.operation, LibgpiodOperation.openChip)
        XCTAssertEqual(error?.target, "/dev/null")
        XCTAssertTrue(error?.reason.contains("(errno ") ?? false, "\(String(describing: error))")
        XCTAssertEqual(error?.isChipMissing, false)
    }

    func testPermissionDeniedNamesTheUdevRuleAndGroup() {
        let error = errnoError(LibgpiodOperation.openChip, "/dev/gpiochip0", errno: EACCES)
        XCTAssertTrue(error.description.contains("udev/60-lifesignal-gpio.rules"))
        XCTAssertTrue(error.description.contains("group 'gpio'"))
        XCTAssertTrue(error.reason.contains("Permission denied"))
        XCTAssertNil(errnoError(LibgpiodOperation.openChip, "/dev/gpiochip0", errno: ENODEV).hint)
    }

    func testLiveClientOnAChipThatIsNotThereThrowsChipMissing() {
        let config = LibgpiodConfiguration(
            chip: .label("lifesignal-no-such-chip"),
            button: .init(line: .name("GPIO17")),
            leds: [.init(line: .name("GPIO5"))])
        let error = catchError { _ = try GPIOLines.libgpiod(config, log: Logger(label: "test")) }
        XCTAssertEqual(error?.isChipMissing, true, "\(String(describing: error))")
    }
}
