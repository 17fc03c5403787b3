import CheckInModels
import CheckInStoreClient
@testable import CheckInStoreLive
import SQLiteDatabase
import TestSupport
import XCTest

/// A watcher's dependents in the store (schema v9): added by code, kept in order across a reopen
/// (a restart), replaced by name, removed; the sort option kept; a v8 file takes them.
final class DependentStoreTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var path: String { directory.file("checkins.sqlite") }

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
    }

    override func tearDown() {
        directory = nil
    }

    func testDependentsAndTheSortOptionSurviveAReopenAndAV8FileTakesThem() async throws {
        do {
            let old = try Connection(path: path)
            try old.transaction { () throws(SQLiteError) in
                for migration in Schema.migrations.prefix(8) { for sql in migration { try old.execute(sql) } }
                _ = try old.pragma("user_version", set: "8")
            }
        }
        let mum = DependentEntry(name: "Mum", source: .mqtt(baseTopic: "lifesignal/0123456789ab"), heartbeat: .seconds(90))
        let gran = DependentEntry(name: "Gran", source: .backend(id: "dev-7"), heartbeat: .seconds(600))
        do {
            let database = try await CheckInDatabase.open(path: path)
            let empty = try await database.storedDependents()
            XCTAssertEqual(empty, StoredDependents())
            try await database.addDependent(mum)
            try await database.addDependent(gran)
            try await database.saveDependentsSortOption(.deadline)
            try await database.saveDependentsSortOption(.name)
            await database.close()
        }
        let database = try await CheckInDatabase.open(path: path)
        let stored = try await database.storedDependents()
        XCTAssertEqual(stored, StoredDependents(entries: [mum, gran], sortOption: .name))
        // The same name again replaces; names are compared without case, as the CLI does.
        var moved = mum
        moved.source = .mqtt(baseTopic: "lifesignal/kitchen")
        try await database.addDependent(moved)
        try await database.removeDependent(named: "GRAN")
        let after = try await database.storedDependents()
        XCTAssertEqual(after.entries, [moved])
        await database.close()
    }

    func testARowWithAnUnknownSourceIsReportedAsDamagedNotSkipped() async throws {
        let database = try await CheckInDatabase.open(path: path)
        await database.close()
        do {
            let raw = try Connection(path: path)
            // A newer release's source kind, written past this release's CHECK by a hand-edited file.
            try raw.execute("PRAGMA ignore_check_constraints = ON")
            try raw.execute("INSERT INTO dependents VALUES ('Mum', 'carrier-pigeon', 'loft', 90, 1)")
        }
        let reopened = try await CheckInDatabase.open(path: path)
        do {
            _ = try await reopened.storedDependents()
            XCTFail("an unknown source must not be skipped silently")
        } catch {
            XCTAssertEqual(error.kind, .corrupt)
            XCTAssertTrue(error.message.contains("unknown source 'carrier-pigeon'"), error.message)
        }
        await reopened.close()
    }
}
