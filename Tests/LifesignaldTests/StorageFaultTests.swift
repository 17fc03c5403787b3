import ControlProtocol
import Foundation
import SQLiteDatabase
import TestSupport
import XCTest

/// The storage's worst days, on the real daemon: a full disk, a read-only filesystem, a damaged
/// file, a file from a newer release, a state directory that is missing or cannot be created.
/// Each time the daemon stays up, shows the fault on the LEDs, never acknowledges a check-in it
/// did not store, says what is wrong (status and log), keeps what it has, and recovers on its own.
final class StorageFaultTests: XCTestCase {
    /// The tiny disks' directories: unmounted and removed when the test ends.
    private var disks: [TemporaryDirectory] = []

    override func tearDown() {
        for disk in disks.reversed() { disk.remove() }
        disks.removeAll()
    }

    func testDiskFullRefusesCheckInsShowsTheFaultAndRecoversWhenSpaceIsFreed() throws {
        let (device, disk) = try deviceOnTinyFilesystem(size: "512k")
        try device.start()
        let kept = try (0..<3).map { _ in try device.decode(CheckInReport.self, device.ctl(["check-in", "--json"])).id }

        // Fill the filesystem; SQLite may still have room in pages it already has, so press until
        // the store says it is full (it must, long before this many presses).
        let filler = disk + "/filler"
        _ = run("/bin/dd", ["if=/dev/zero", "of=\(filler)", "bs=4k"])
        var refusal: DaemonHarness.CommandResult?
        for _ in 0..<200 {
            let result = try device.ctl(["check-in", "--json"])
            if result.exitCode != 0 {
                refusal = result
                break
            }
        }
        let refused = try XCTUnwrap(refusal, "a full disk must refuse a check-in")
        XCTAssertTrue(refused.standardError.contains("NOT saved"), refused.standardError)
        XCTAssertTrue(refused.standardError.contains("disk full"), refused.standardError)
        try assertShowsFault(device, mentioning: "disk full")
        XCTAssertTrue(device.log.contains("check-in NOT stored"), device.log)

        // Neither a refused setting nor a dismissal can erase the fault while the disk is full
        // (both used to overwrite the one error slot, and the LEDs went green).
        let refusedSetting = try device.ctl(["settings", "set", "--interval", "1m"])
        XCTAssertNotEqual(refusedSetting.exitCode, 0, refusedSetting.standardError)
        XCTAssertEqual(try device.status().indicator, "fault", "a refused setting erased the fault")
        try device.ctl(["dismiss-error"])
        XCTAssertEqual(try device.status().indicator, "fault", "dismiss-error erased the fault")

        // Everything acknowledged before is still there (reading needs no space).
        let history = try device.decode([CheckInReport].self, device.ctl(["history", "--limit", "1000", "--json"]))
        XCTAssertTrue(Set(history.map(\.id)).isSuperset(of: kept))

        // Space again: the next press is stored and the fault clears.
        try FileManager.default.removeItem(atPath: filler)
        let stored = try device.decode(CheckInReport.self, device.ctl(["check-in", "--json"]))
        try device.waitUntil("the fault has cleared") {
            let status = try device.status()
            return status.error == nil && status.indicator == "checked_in" && status.lastCheckIn?.id == stored.id
        }
        _ = device.stop()
    }

    /// Linux refuses `remount,ro` while the daemon holds the database open for writing (EBUSY), so
    /// the filesystem goes read-only between runs here, as after an fsck that left it read-only.
    func testReadOnlyFilesystemKeepsTheCheckInsShowsTheFaultAndRecoversWhenWritable() throws {
        let (device, disk) = try deviceOnTinyFilesystem(size: "4m")
        try device.start()
        let first = try device.decode(CheckInReport.self, device.ctl(["check-in", "--json"]))
        _ = device.stop()

        try mountOrFail(["-o", "remount,ro", disk])
        try device.start()  // before this change the daemon exited 73 here
        try assertShowsFault(device, mentioning: "read-only")
        let refused = try device.ctl(["check-in"])
        XCTAssertNotEqual(refused.exitCode, 0, "a check-in on a read-only filesystem must not be acknowledged")
        XCTAssertTrue(refused.standardError.contains("NOT saved"), refused.standardError)
        try assertShowsFault(device, mentioning: "read-only")

        // Writable again: the retry proves the store writes, and the fault clears by itself.
        try mountOrFail(["-o", "remount,rw", disk])
        try device.waitUntil("the fault cleared on its own", timeout: 30) {
            let status = try device.status()
            return status.error == nil && status.indicator == "checked_in" && status.lastCheckIn?.id == first.id
        }
        let stored = try device.decode(CheckInReport.self, device.ctl(["check-in", "--json"]))
        let history = try device.decode([CheckInReport].self, device.ctl(["history", "--json"]))
        XCTAssertEqual(history.map(\.id), [stored.id, first.id])
        _ = device.stop()
    }

    func testStateDirectoryThatCannotBeCreatedKeepsTheDaemonUpShowingTheFaultUntilItCan() throws {
        // The state directory does not exist and its filesystem is read-only: it cannot be created.
        let (device, disk) = try deviceOnTinyFilesystem(size: "4m", storeUnder: "state/nested")
        try mountOrFail(["-o", "remount,ro", disk])
        try device.start()  // before this change the daemon exited 73 here
        try assertShowsFault(device, mentioning: device.storePath)
        let refused = try device.ctl(["check-in"])
        XCTAssertNotEqual(refused.exitCode, 0)
        XCTAssertTrue(refused.standardError.contains("NOT saved"), refused.standardError)
        XCTAssertTrue(device.log.contains("condition=store_cannot_"), device.log)

        // Writable again: the back-off loop opens the store on its own, without a press.
        try mountOrFail(["-o", "remount,rw", disk])
        try device.waitUntil("the store opened on its own", timeout: 30) {
            try device.status().phase == "never_checked_in"
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: device.storePath))
        _ = try device.decode(CheckInReport.self, device.ctl(["check-in", "--json"]))
        _ = device.stop()
    }

    func testMissingStateDirectoryIsCreated() throws {
        let device = try DaemonHarness(interval: "1h", reminder: "10m")
        let stateDirectory = (device.storePath as NSString).deletingLastPathComponent
        XCTAssertFalse(FileManager.default.fileExists(atPath: stateDirectory))
        try device.start()
        let stored = try device.decode(CheckInReport.self, device.ctl(["check-in", "--json"]))
        XCTAssertEqual(try device.status().lastCheckIn?.id, stored.id)
        let attributes = try FileManager.default.attributesOfItem(atPath: stateDirectory)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o750)
        _ = device.stop()
    }

    func testCorruptDatabaseIsMovedAsideNotDeletedAndTheDeviceCarriesOnSayingSo() throws {
        let device = try DaemonHarness(interval: "1h", reminder: "10m")
        try device.start()
        try device.ctl(["check-in"])
        _ = device.stop()
        // Damage the header: SQLite no longer recognises the file.
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: device.storePath))
        try handle.write(contentsOf: Data(repeating: 0x5A, count: 100))
        try handle.close()
        let damaged = try Data(contentsOf: URL(fileURLWithPath: device.storePath))

        try device.start()
        let status = try device.status()
        XCTAssertNil(status.error, "a fresh store works: no condition")
        let message = try XCTUnwrap(status.messages?.first, "the status must say the file was replaced")
        XCTAssertTrue(message.contains("moved aside"), message)
        XCTAssertEqual(status.phase, "never_checked_in", "the fresh store knows no check-in")
        XCTAssertEqual(status.indicator, "never_checked_in", "the device works: no fault pattern")
        XCTAssertTrue(device.log.contains("moved aside"), device.log)

        // The damaged bytes are kept, byte for byte, next to the fresh store.
        let directory = (device.storePath as NSString).deletingLastPathComponent
        let name = (device.storePath as NSString).lastPathComponent
        let movedNames = try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0.hasPrefix(name) && $0 != name && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }
        XCTAssertEqual(movedNames.count, 1, "\(movedNames)")
        let moved = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + (movedNames.first ?? "")))
        XCTAssertEqual(moved, damaged)

        _ = try device.decode(CheckInReport.self, device.ctl(["check-in", "--json"]))
        _ = device.stop()
    }

    func testNewerSchemaIsLeftUntouchedShownAsAFaultAndTheStoreOpensOnceItIsMovedAway() throws {
        let device = try DaemonHarness(interval: "1h", reminder: "10m")
        try device.start()
        let kept = try device.decode(CheckInReport.self, device.ctl(["check-in", "--json"]))
        _ = device.stop()
        do {
            let connection = try Connection(path: device.storePath)
            _ = try connection.pragma("user_version", set: "99")
        }

        try device.start()  // before this change the daemon exited 73 here
        try assertShowsFault(device, mentioning: "newer")
        let refused = try device.ctl(["check-in"])
        XCTAssertNotEqual(refused.exitCode, 0)
        XCTAssertTrue(refused.standardError.contains("NOT saved"), refused.standardError)
        _ = device.stop()
        do {
            let connection = try Connection(path: device.storePath)
            XCTAssertEqual(try connection.pragma("user_version"), "99", "the newer file is left as it was")
            let select = try connection.prepare("SELECT count(*) FROM check_ins WHERE id = ?1")
            try select.bind(.text(kept.id))
            _ = try select.step()
            XCTAssertEqual(try select.int64(at: 0), 1, "its check-ins are kept")
        }

        // The operator moves the newer file away; the running daemon starts a fresh store by itself.
        try device.start()
        try FileManager.default.moveItem(atPath: device.storePath, toPath: device.storePath + ".from-newer-release")
        for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: device.storePath + suffix) {
            try FileManager.default.moveItem(atPath: device.storePath + suffix,
                                             toPath: device.storePath + ".from-newer-release" + suffix)
        }
        try device.waitUntil("the store opened on its own", timeout: 30) {
            let status = try device.status()
            return status.error == nil && status.phase == "never_checked_in"
        }
        _ = device.stop()
    }

    /// A disk that is full when the daemon starts is a fault before anyone presses (it showed
    /// "checked in" until a press failed), and clears by itself once there is space again. The
    /// disk fills while the daemon runs and it then loses power: its -wal and -shm files stay, so
    /// opening needs no space and only a write can tell.
    func testDiskFullAtStartShowsTheFaultBeforeAnyPressAndClearsOnceThereIsSpace() throws {
        let (device, disk) = try deviceOnTinyFilesystem(size: "512k")
        try device.start()
        let kept = try device.decode(CheckInReport.self, device.ctl(["check-in", "--json"]))
        let filler = disk + "/filler"
        _ = run("/bin/dd", ["if=/dev/zero", "of=\(filler)", "bs=4k"])
        device.killHard()
        XCTAssertTrue(FileManager.default.fileExists(atPath: device.storePath + "-wal"))

        try device.start()
        try assertShowsFault(device, mentioning: "disk full")

        try FileManager.default.removeItem(atPath: filler)
        try device.waitUntil("the store opened on its own", timeout: 30) {
            let status = try device.status()
            return status.error == nil && status.indicator == "checked_in" && status.lastCheckIn?.id == kept.id
        }
        _ = device.stop()
    }

    /// `rm` of the store's files while the daemon runs: before, every later check-in was
    /// acknowledged and lost at the next restart. Now the first is refused (nothing acknowledged
    /// that is not on disk at the path), the store is put back at its path at once with every row
    /// the open handle held, and the status says so.
    func testDeletedStoreRefusesTheCheckInThenRecoversEveryRowIntoTheFileAtItsPath() throws {
        let device = try DaemonHarness(interval: "1h", reminder: "10m")
        try device.start()
        let kept = try (0..<2).map { _ in try device.decode(CheckInReport.self, device.ctl(["check-in", "--json"])).id }
        for suffix in ["", "-wal", "-shm"] {
            try FileManager.default.removeItem(atPath: device.storePath + suffix)
        }

        let refused = try device.ctl(["check-in"])
        XCTAssertNotEqual(refused.exitCode, 0, "a check-in into a deleted store must not be acknowledged")
        XCTAssertTrue(refused.standardError.contains("NOT saved"), refused.standardError)
        XCTAssertTrue(refused.standardError.contains("\(device.storePath) is missing"), refused.standardError)
        try device.waitUntil("the store is back at its path") {
            let status = try device.status()
            return status.error == nil && status.messages?.contains { $0.contains("was missing") } == true
        }
        XCTAssertTrue(device.log.contains("condition=store_file_moved"), "the fault was logged: \(device.log)")
        XCTAssertTrue(device.log.contains("deleted or replaced while the device ran"), device.log)

        let stored = try device.decode(CheckInReport.self, device.ctl(["check-in", "--json"]))
        XCTAssertEqual(device.stop(), 0)

        // What the next start will find at the path.
        let connection = try Connection(path: device.storePath)
        let select = try connection.prepare("SELECT id FROM check_ins ORDER BY insertion_order")
        var onDisk: [String] = []
        while try select.step() { onDisk.append(try select.text(at: 0)) }
        XCTAssertEqual(onDisk, kept + [stored.id])
    }

    // MARK: Helpers

    /// The LEDs show the fault pattern (amber/red alternating, green off), the status says why.
    private func assertShowsFault(_ device: DaemonHarness, mentioning text: String,
                                  file: StaticString = #filePath, line: UInt = #line) throws {
        try device.waitUntil("the LEDs show the fault", file: file, line: line) {
            let status = try device.status()
            let leds = Dictionary(uniqueKeysWithValues: status.leds.map { ($0.name, $0.on) })
            return status.indicator == "fault" && leds["green"] == false && leds["amber"] != leds["red"]
        }
        let status = try device.status()
        let error = try XCTUnwrap(status.error, "the status must say what is wrong", file: file, line: line)
        XCTAssertTrue(error.contains(text), "\(error) should mention \(text)", file: file, line: line)
    }

    private func deviceOnTinyFilesystem(size: String, storeUnder subdirectory: String = "")
        throws -> (DaemonHarness, String) {
        guard getuid() == 0 else { throw XCTSkip("mounting a tmpfs needs root") }
        let scratch = try TemporaryDirectory(prefix: "lifesignal-disk")
        disks.append(scratch)
        let disk = try scratch.mountTinyFilesystem("disk", size: size)
        let directory = subdirectory.isEmpty ? disk : disk + "/" + subdirectory
        let device = try DaemonHarness(interval: "1h", reminder: "10m", storePath: directory + "/lifesignal.sqlite")
        return (device, disk)
    }

    private func mountOrFail(_ arguments: [String]) throws {
        let (status, output) = run("/bin/mount", arguments)
        guard status == 0 else { throw HarnessError("mount \(arguments.joined(separator: " ")) failed: \(output)") }
    }

    @discardableResult
    private func run(_ tool: String, _ arguments: [String]) -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        do { try process.run() } catch { return (-1, "\(error)") }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }
}

