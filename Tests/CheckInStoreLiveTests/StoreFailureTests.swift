import CheckInModels
import CheckInStoreClient
@testable import CheckInStoreLive
import Glibc
import SQLiteDatabase
import TestSupport
import XCTest

/// What the store does when the file, its directory or its disk is not as it should be.
final class StoreFailureTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var path: String { directory.file("checkins.sqlite") }

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
    }

    override func tearDown() {
        directory.remove()
    }

    private func openFailure(_ path: String, file: StaticString = #filePath, line: UInt = #line) async -> StoreFailure? {
        do {
            _ = try await CheckInDatabase.open(path: path)
            XCTFail("opening \(path) should have failed", file: file, line: line)
            return nil
        } catch {
            return error
        }
    }

    // MARK: Newer schema

    func testANewerSchemaIsRefusedAndTheFileLeftUntouched() async throws {
        do {
            let future = try Connection(path: path)
            try future.execute("CREATE TABLE from_the_future (x INTEGER); INSERT INTO from_the_future VALUES (1)")
            try future.pragma("user_version", set: "99")
        }
        let before = try directory.read(path)

        let refused = await openFailure(path)
        let failure = try XCTUnwrap(refused)
        XCTAssertEqual(failure.kind, .newerSchema)
        XCTAssertTrue(failure.message.contains(path), failure.message)
        XCTAssertTrue(failure.message.contains("99"), failure.message)
        XCTAssertTrue(failure.message.contains("up to \(Schema.latestVersion)"), failure.message)
        XCTAssertEqual(try directory.read(path), before)
        XCTAssertFalse(directory.exists(path + "-wal"), "no WAL may be started on a file we refuse")
    }

    func testANegativeSchemaVersionIsRefusedAndTheFileLeftUntouched() async throws {
        do {
            let foreign = try Connection(path: path)
            try foreign.execute("CREATE TABLE someone_elses (x INTEGER)")
            try foreign.pragma("user_version", set: "-3")
        }
        let before = try directory.read(path)

        let refused = await openFailure(path)
        let failure = try XCTUnwrap(refused)
        XCTAssertEqual(failure.kind, .unavailable)
        XCTAssertTrue(failure.message.contains("-3"), failure.message)
        XCTAssertTrue(failure.message.contains(path), failure.message)
        XCTAssertEqual(try directory.read(path), before)
    }

    // MARK: Corrupt files

    func testAGarbageFileIsMovedAsideAndTheNextOpenStartsFresh() async throws {
        let garbage = Array("this is not an SQLite database, just bytes. ".utf8) + (0..<4000).map { UInt8($0 % 251) }
        let strayWAL = Array("stray wal".utf8)
        try directory.write(garbage, to: path)
        try directory.write(strayWAL, to: path + "-wal")

        let refused = await openFailure(path)
        let failure = try XCTUnwrap(refused)
        XCTAssertEqual(failure.kind, .corrupt)

        let moved = directory.list(directory.path).filter { $0.hasPrefix("checkins.sqlite.corrupt-") }
        let movedMain = try XCTUnwrap(moved.first { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") })
        XCTAssertTrue(failure.message.contains(directory.file(movedMain)), failure.message)
        XCTAssertEqual(try directory.read(directory.file(movedMain)), garbage, "the original bytes must be kept")
        XCTAssertEqual(try directory.read(directory.file(movedMain + "-wal")), strayWAL, "its WAL goes with it")
        XCTAssertFalse(directory.exists(path))
        XCTAssertFalse(directory.exists(path + "-wal"))

        let fresh = try await CheckInDatabase.open(path: path)
        let count = try await fresh.count()
        XCTAssertEqual(count, 0)
        _ = try await fresh.record(NewCheckIn(id: .random(), at: instant(wall: 1), source: .button))
        XCTAssertEqual(try directory.read(directory.file(movedMain)), garbage)
    }

    /// Past the header check, so SQLite itself reports the damage (SQLITE_NOTADB / SQLITE_CORRUPT).
    func testAFileWithAValidHeaderButDamagedContentIsMovedAside() async throws {
        let damaged = Array("SQLite format 3\u{0}".utf8) + Array(repeating: UInt8(0xA5), count: 4080)
        try directory.write(damaged, to: path)

        let refused = await openFailure(path)
        let failure = try XCTUnwrap(refused)
        XCTAssertEqual(failure.kind, .corrupt, failure.message)
        let moved = try XCTUnwrap(directory.list(directory.path).first { $0.hasPrefix("checkins.sqlite.corrupt-") })
        XCTAssertTrue(failure.message.contains(directory.file(moved)), failure.message)
        XCTAssertEqual(try directory.read(directory.file(moved)), damaged)
        _ = try await CheckInDatabase.open(path: path)
    }

    /// SQLite would delete a -wal found next to an empty database file; it is moved aside instead.
    func testAWriteAheadLogBesideAnEmptyFileIsMovedAsideNotDeleted() async throws {
        let log = Array(repeating: UInt8(7), count: 5000)
        try directory.write([], to: path)
        try directory.write(log, to: path + "-wal")

        let failure = await openFailure(path)
        XCTAssertEqual(failure?.kind, .corrupt)
        let movedLog = try XCTUnwrap(directory.list(directory.path).first { $0.hasSuffix("-wal") && $0.contains(".corrupt-") })
        XCTAssertEqual(try directory.read(directory.file(movedLog)), log)
        _ = try await CheckInDatabase.open(path: path)
    }

    func testTwoCorruptionsDoNotOverwriteEachOther() async throws {
        let first = Array(repeating: UInt8(ascii: "a"), count: 2048)
        let second = Array(repeating: UInt8(ascii: "b"), count: 2048)
        try directory.write(first, to: path)
        let firstFailure = await openFailure(path)
        XCTAssertEqual(firstFailure?.kind, .corrupt)
        try directory.write(second, to: path)
        let secondFailure = await openFailure(path)
        XCTAssertEqual(secondFailure?.kind, .corrupt)

        let moved = directory.list(directory.path).filter { $0.hasPrefix("checkins.sqlite.corrupt-") }
        XCTAssertEqual(moved.count, 2, "\(moved)")
        let contents = try Set(moved.map { try directory.read(directory.file($0)) })
        XCTAssertEqual(contents, [first, second])
    }

    // MARK: Directories

    func testAMissingParentDirectoryIsCreatedWithMode0750() async throws {
        let nested = directory.file("state/lifesignal/checkins.sqlite")
        let database = try await CheckInDatabase.open(path: nested)
        _ = try await database.record(NewCheckIn(id: .random(), at: instant(wall: 1), source: .button))
        XCTAssertEqual(directory.mode(directory.file("state")), 0o750)
        XCTAssertEqual(directory.mode(directory.file("state/lifesignal")), 0o750)
    }

    func testAParentThatIsAFileIsReportedByName() async throws {
        let blocker = directory.file("not-a-directory")
        try directory.write([1, 2, 3], to: blocker)
        let refused = await openFailure(blocker + "/checkins.sqlite")
        let failure = try XCTUnwrap(refused)
        XCTAssertEqual(failure.kind, .unavailable)
        XCTAssertTrue(failure.message.contains(blocker), failure.message)
    }

    // MARK: Read-only

    /// Permission bits do not stop root, so the directory is bind-mounted read-only: writes then
    /// fail with EROFS for every user, as on a device whose filesystem was remounted read-only.
    func testAnExistingDatabaseOnAReadOnlyMountIsReportedReadOnly() async throws {
        let mounted = try directory.makeDirectory("data")
        let file = mounted + "/checkins.sqlite"
        do {
            let database = try await CheckInDatabase.open(path: file)
            _ = try await database.record(NewCheckIn(id: .random(), at: instant(wall: 1), source: .button))
        }
        try directory.makeReadOnly(mounted)

        let refused = await openFailure(file)
        let failure = try XCTUnwrap(refused)
        XCTAssertEqual(failure.kind, .readOnly, failure.message)
        XCTAssertTrue(failure.message.contains(file), failure.message)
    }

    /// An immutable file (chattr +i) cannot be opened for writing even by root; SQLite then quietly
    /// opens it read-only, which the store must notice instead of failing at the first check-in.
    func testAnImmutableDatabaseFileIsReportedReadOnly() async throws {
        do {
            let database = try await CheckInDatabase.open(path: path)
            _ = try await database.record(NewCheckIn(id: .random(), at: instant(wall: 1), source: .button))
        }
        try setImmutable(path, true)
        defer { try? setImmutable(path, false) }

        let refused = await openFailure(path)
        let failure = try XCTUnwrap(refused)
        XCTAssertEqual(failure.kind, .readOnly, failure.message)
        XCTAssertTrue(failure.message.contains(path), failure.message)
    }

    func testANewDatabaseInAReadOnlyDirectoryIsReportedReadOnly() async throws {
        let mounted = try directory.makeDirectory("data")
        try directory.makeReadOnly(mounted)
        let file = mounted + "/checkins.sqlite"

        let refused = await openFailure(file)
        let failure = try XCTUnwrap(refused)
        XCTAssertEqual(failure.kind, .readOnly, failure.message)
        XCTAssertTrue(failure.message.contains(file), failure.message)
        XCTAssertFalse(directory.exists(file))
    }

    // MARK: Full disk

    /// A 256 KiB tmpfs fills after a few dozen commits (each appends a 4 KiB page to the WAL).
    func testAFullDiskIsReportedAndEveryConfirmedCheckInKept() async throws {
        let mounted = try directory.mountTinyFilesystem("tiny", size: "256k")
        let file = mounted + "/checkins.sqlite"
        let database = try await CheckInDatabase.open(path: file)
        // Pad each row so the disk fills in few steps whatever the page reuse.
        var confirmed: [CheckInRecord] = []
        var failure: StoreFailure?
        for step in 0..<2000 {
            let boot = String(repeating: "x", count: 3000) + String(step)
            do {
                confirmed.append(try await database.record(
                    NewCheckIn(id: .random(), at: instant(wall: Int64(step), boot: boot), source: .button)))
            } catch {
                failure = error
                break
            }
        }
        let full = try XCTUnwrap(failure, "a 256 KiB filesystem must fill up")
        XCTAssertEqual(full.kind, .full, full.message)
        XCTAssertTrue(full.message.contains(file), full.message)
        XCTAssertTrue(full.message.contains("free space"), full.message)
        XCTAssertGreaterThan(confirmed.count, 0)

        // Every check-in that `record` confirmed is still there, and nothing else.
        let history = try await database.history(limit: 5000)
        XCTAssertEqual(history, confirmed.reversed())
    }

    // MARK: Error mapping

    func testSQLiteErrorsMapToTheKindsTheDeviceActsOn() throws {
        let examples: [(SQLiteResultCode, Int32, StoreFailure.Kind)] = [
            (.full, 0, .full),
            (SQLiteResultCode(rawValue: SQLiteResultCode.ioError.rawValue | (3 << 8)), ENOSPC, .full),
            (.readOnly, 0, .readOnly),
            (.readOnlyDirectory, 0, .readOnly),
            (.cantOpen, EACCES, .readOnly),
            (.cantOpen, EROFS, .readOnly),
            (.cantOpen, ENOENT, .unavailable),
            (.notADatabase, 0, .corrupt),
            (.corrupt, 0, .corrupt),
            (.busy, 0, .unavailable),
            (.constraintCheck, 0, .other),
        ]
        for (code, systemErrno, expected) in examples {
            let error = SQLiteError(operation: "step", path: "/data/x.sqlite", code: code, message: "m", systemErrno: systemErrno)
            let failure = StoreFailure(error, while: "record a check-in")
            XCTAssertEqual(failure.kind, expected, "code \(code.rawValue) errno \(systemErrno)")
            XCTAssertTrue(failure.message.contains("/data/x.sqlite"), failure.message)
        }
    }

    /// FS_IOC_SETFLAGS with FS_IMMUTABLE_FL, as `chattr +i` does (linux/fs.h).
    private func setImmutable(_ path: String, _ immutable: Bool) throws {
        let getFlags: UInt = 0x8008_6601, setFlags: UInt = 0x4008_6602, immutableFlag: Int = 0x10
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw TestFailure("open \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var flags = 0
        guard ioctl(descriptor, getFlags, &flags) == 0 else {
            throw XCTSkip("this filesystem has no inode flags (\(String(cString: strerror(errno))))")
        }
        flags = immutable ? flags | immutableFlag : flags & ~immutableFlag
        guard ioctl(descriptor, setFlags, &flags) == 0 else {
            throw XCTSkip("cannot set the immutable flag here (\(String(cString: strerror(errno))))")
        }
    }
}
