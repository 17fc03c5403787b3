import Glibc
import LinuxIO
import TestSupport
import XCTest

/// inotify on a directory, as the daemon uses it on /dev to learn that a GPIO chip appeared.
final class DirectoryWatcherTests: XCTestCase {
    private var scratch: TemporaryDirectory!
    private var directory: String { scratch.path }

    override func setUpWithError() throws {
        scratch = try TemporaryDirectory(prefix: "lifesignal-watch")
    }

    override func tearDown() {
        scratch = nil
    }

    private func create(_ name: String) {
        let fd = open("\(directory)/\(name)", O_CREAT | O_WRONLY, 0o600)
        XCTAssertGreaterThanOrEqual(fd, 0)
        close(fd)
    }

    func testReportsCreatedChangedAndRemovedEntriesWithThePrefixOnly() async throws {
        let watcher = try DirectoryWatcher(directory: directory, namePrefix: "gpiochip")
        var changes = watcher.changes.makeAsyncIterator()
        create("unrelated")  // not a chip: must not be reported
        create("gpiochip7")
        let created = await changes.next()
        XCTAssertEqual(created, "gpiochip7", "the unrelated file came first and must have been skipped")

        chmod("\(directory)/unrelated", 0o660)
        chmod("\(directory)/gpiochip7", 0o660)  // what udev does after devtmpfs created the node
        let changed = await changes.next()
        XCTAssertEqual(changed, "gpiochip7")

        unlink("\(directory)/gpiochip7")
        let removed = await changes.next()
        XCTAssertEqual(removed, "gpiochip7")
        watcher.stop()
    }

    func testStopEndsTheStream() async throws {
        let watcher = try DirectoryWatcher(directory: directory, namePrefix: "gpiochip")
        watcher.stop()
        var changes = watcher.changes.makeAsyncIterator()
        let end = await changes.next()
        XCTAssertNil(end)
        watcher.stop()  // idempotent
    }

    func testAMissingDirectoryIsAnErrorNamingIt() {
        XCTAssertThrowsError(try DirectoryWatcher(directory: directory + "/nope", namePrefix: "gpiochip")) { error in
            XCTAssertTrue("\(error)".contains(directory + "/nope"), "\(error)")
        }
    }
}
