import CheckInModels
@testable import CheckInStoreLive
import Glibc
import SQLiteDatabase
import TestSupport
import XCTest

/// Check-in times are personal data: the database and the files SQLite keeps beside it are never
/// readable by others, whatever the umask, also in a state directory that already exists.
final class FileModeTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var path: String { directory.file("checkins.sqlite") }
    private var savedUmask: mode_t = 0

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()  // the state directory exists before the store
        savedUmask = umask(0)  // the worst case: nothing masked
    }

    override func tearDown() {
        umask(savedUmask)
        directory.remove()
    }

    func testANewDatabaseAndItsCompanionFilesAre0640WithUmask000() async throws {
        let database = try await CheckInDatabase.open(path: path)
        _ = try await database.record(NewCheckIn(id: .random(), at: instant(wall: 1), source: .button))
        for file in [path, path + "-wal", path + "-shm"] {
            XCTAssertEqual(directory.mode(file).map { String($0, radix: 8) }, "640", file)
        }
        await database.close()
    }

    /// Files an earlier release created 0644 are narrowed when the store opens them.
    func testAnExistingWorldReadableDatabaseIsNarrowedTo0640() async throws {
        do {
            let earlier = try Connection(path: path)  // as SQLite creates it: 0644 less the umask
            try earlier.execute("PRAGMA journal_mode = WAL; CREATE TABLE t (x INTEGER)")
            try earlier.execute("DROP TABLE t")
        }
        XCTAssertEqual(directory.mode(path), 0o644, "the test's starting point")
        let database = try await CheckInDatabase.open(path: path)
        _ = try await database.record(NewCheckIn(id: .random(), at: instant(wall: 1), source: .button))
        for file in [path, path + "-wal", path + "-shm"] {
            XCTAssertEqual(directory.mode(file).map { String($0, radix: 8) }, "640", file)
        }
        await database.close()
    }

    /// A refused file is left exactly as it was, its mode included.
    func testARefusedFileKeepsItsMode() async throws {
        do {
            let future = try Connection(path: path)
            try future.pragma("user_version", set: "99")
        }
        do {
            _ = try await CheckInDatabase.open(path: path)
            XCTFail("a newer-schema file must be refused")
        } catch {
            XCTAssertEqual(error.kind, .newerSchema)
        }
        XCTAssertEqual(directory.mode(path), 0o644)
    }
}
