import CheckInModels
import CheckInStoreClient
@testable import CheckInStoreLive
import SQLiteDatabase
import TestSupport
import XCTest

/// The watchers the person removed (schema v10): kept across a reopen (a restart), replaced by
/// id, allowed again; a v9 file takes them; the recovery copy carries them.
final class ResponderStoreTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var path: String { directory.file("checkins.sqlite") }

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
    }

    override func tearDown() {
        directory = nil
    }

    func testRemovedWatchersSurviveAReopenAndAV9FileTakesThem() async throws {
        do {
            let old = try Connection(path: path)
            try old.transaction { () throws(SQLiteError) in
                for migration in Schema.migrations.prefix(9) { for sql in migration { try old.execute(sql) } }
                _ = try old.pragma("user_version", set: "9")
            }
        }
        let anna = RemovedWatcher(id: "kitchen-1", name: "Anna", removedAt: WallTime(secondsSinceEpoch: 1_800_000_000))
        let tom = RemovedWatcher(id: "tom-pi", name: "Tom", removedAt: WallTime(secondsSinceEpoch: 1_800_000_100))
        do {
            let database = try await CheckInDatabase.open(path: path)
            let none = try await database.removedWatchers()
            XCTAssertEqual(none, [])
            try await database.removeWatcher(tom)
            try await database.removeWatcher(anna)
            await database.close()
        }
        let database = try await CheckInDatabase.open(path: path)
        let stored = try await database.removedWatchers()
        XCTAssertEqual(stored, [anna, tom], "oldest removal first")
        // The same id again replaces (a watcher renamed and removed again); allowing lets it in.
        var renamed = anna
        renamed.name = "Anna B"
        renamed.removedAt = WallTime(secondsSinceEpoch: 1_800_000_200)
        try await database.removeWatcher(renamed)
        try await database.allowWatcher(id: "tom-pi")
        try await database.allowWatcher(id: "nobody")
        let after = try await database.removedWatchers()
        XCTAssertEqual(after, [renamed])
        await database.close()
    }

    func testAnIDLongerThanAnMQTTDeviceIDIsRefusedByTheSchemaNotTruncated() async throws {
        let database = try await CheckInDatabase.open(path: path)
        do {
            try await database.removeWatcher(RemovedWatcher(id: String(repeating: "x", count: 65), name: "Anna",
                                                            removedAt: WallTime(secondsSinceEpoch: 1)))
            XCTFail("a 65-byte id was kept")
        } catch {
            XCTAssertTrue(error.message.contains("remove the watcher Anna"), error.message)
        }
        let stored = try await database.removedWatchers()
        XCTAssertEqual(stored, [])
        await database.close()
    }
}
