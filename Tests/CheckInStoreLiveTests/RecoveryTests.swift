import CheckInModels
import CheckInStoreClient
@testable import CheckInStoreLive
import Glibc
import SQLiteDatabase
import TestSupport
import XCTest

/// The store tells the truth about itself: once its database is deleted, moved or replaced while
/// open, no write is acknowledged that is not on disk at the path, and recovery makes the file at
/// the path the store again with every row the open handle still holds.
final class RecoveryTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var path: String { directory.file("checkins.sqlite") }

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
    }

    override func tearDown() {
        directory.remove()
    }

    // MARK: Deleted

    func testDeletedFilesRefuseEveryWriteUntilRecoveryKeepsEveryRowInTheFileAtThePath() async throws {
        let database = try await CheckInDatabase.open(path: path)
        let first = try await database.record(NewCheckIn(id: .random(), at: instant(wall: 1), source: .button))
        let second = try await database.record(NewCheckIn(id: .random(), at: instant(wall: 2), source: .cli))
        try await fillEveryOtherTable(database)
        let before = try await Self.rows(database)

        // Deleted between the check before a write and its COMMIT: the row is in the old handle only.
        let raced = NewCheckIn(id: .random(), at: instant(wall: 3), source: .cli)
        do {
            try await Self.recordWhileTheFilesAreDeleted(raced, database)
            XCTFail("a write committed to a deleted file must not be acknowledged")
        } catch {
            XCTAssertEqual(error.kind, .moved)
            XCTAssertTrue(error.message.contains("NOT stored at \(path)"), error.message)
            XCTAssertTrue(error.message.contains("missing"), error.message)
        }
        XCTAssertFalse(directory.exists(path))

        // Every later write is refused before it starts, and says why.
        do {
            _ = try await database.record(NewCheckIn(id: .random(), at: instant(wall: 4), source: .button))
            XCTFail("a write to a deleted store must be refused")
        } catch {
            XCTAssertEqual(error.kind, .moved)
            XCTAssertTrue(error.message.contains("database \(path) is missing"), error.message)
            XCTAssertTrue(error.message.contains("Nothing was written"), error.message)
        }
        let needsRecovery = await database.needsRecovery
        XCTAssertTrue(needsRecovery)
        do {
            try await database.probe()
            XCTFail("the probe must fail too")
        } catch {
            XCTAssertEqual(error.kind, .moved)
        }

        let checkInsBefore = try XCTUnwrap(before["check_ins"]).count  // first, second, the one answering a ping
        let report = try await database.recover()
        XCTAssertEqual(report.found, .missing, report.description)
        XCTAssertEqual(report.copied["check_ins"], checkInsBefore + 1, report.description)
        for table in RowCopy.tables.map(\.name) where table != "check_ins" {
            XCTAssertEqual(report.copied[table], before[table]?.count, "\(table): \(report.description)")
            XCTAssertGreaterThan(before[table]?.count ?? 0, 0, "\(table) has a row to recover")
        }

        // On disk at the path, read by another connection: everything, including the raced row.
        let onDisk = try Self.rows(atPath: path)
        var expected = before
        expected["check_ins"] = try await Self.rows(database)["check_ins"]
        XCTAssertEqual(onDisk, expected)
        XCTAssertEqual(onDisk["check_ins"]?.count, checkInsBefore + 1)
        let history = try await database.history(limit: 10).map(\.id)
        XCTAssertEqual(history.first, raced.id)
        XCTAssertEqual(Array(history.suffix(2)), [second.id, first.id])
        XCTAssertEqual(directory.mode(path), 0o640)

        let after = try await database.record(NewCheckIn(id: .random(), at: instant(wall: 5), source: .button))
        let needsRecoveryAfter = await database.needsRecovery
        XCTAssertFalse(needsRecoveryAfter)
        XCTAssertEqual(try Self.rows(atPath: path)["check_ins"]?.count, checkInsBefore + 2)
        let newest = try await database.history(limit: 1)
        XCTAssertEqual(newest, [after])
        let leftovers = directory.list(directory.path).filter { $0.contains(".displaced-") }
        XCTAssertEqual(leftovers, [], "the old handle's files are gone once it is closed")
        await database.close()
    }

    /// Only the WAL deleted: the database is still at the path, but commits would go to a log
    /// nobody will read again.
    func testADeletedWriteAheadLogIsCheckpointedIntoTheDatabaseAndReopened() async throws {
        let database = try await CheckInDatabase.open(path: path)
        let first = try await database.record(NewCheckIn(id: .random(), at: instant(wall: 1), source: .button))
        let second = try await database.record(NewCheckIn(id: .random(), at: instant(wall: 2), source: .cli))
        await database.waitUntilIdle()  // two commits: below the checkpoint rule, both only in the WAL
        XCTAssertEqual(unlink(path + "-wal"), 0)

        do {
            _ = try await database.record(NewCheckIn(id: .random(), at: instant(wall: 3), source: .button))
            XCTFail("a write whose log is gone must be refused")
        } catch {
            XCTAssertEqual(error.kind, .moved)
            XCTAssertTrue(error.message.contains("write-ahead log \(path)-wal"), error.message)
        }
        let report = try await database.recover()
        XCTAssertEqual(report.found, .logDisplaced(foreignLogMovedTo: nil))
        XCTAssertGreaterThan(report.framesCheckpointed, 0)
        XCTAssertEqual(try Self.checkInIDs(atPath: path, withoutWAL: true), [first.id, second.id],
                       "the rows are in the main file itself now")
        let third = try await database.record(NewCheckIn(id: .random(), at: instant(wall: 3), source: .button))
        XCTAssertEqual(try Self.checkInIDs(atPath: path), [first.id, second.id, third.id])
        await database.close()
    }

    /// Another file put where the WAL was: it must never be replayed into the database.
    func testAReplacedWriteAheadLogIsMovedAsideNeverReplayed() async throws {
        let database = try await CheckInDatabase.open(path: path)
        let recorded = try await database.record(NewCheckIn(id: .random(), at: instant(wall: 1), source: .button))
        let foreign = [UInt8](repeating: 0x3C, count: 4096)
        try directory.write(foreign, to: directory.file("foreign-wal"))
        XCTAssertEqual(rename(directory.file("foreign-wal"), path + "-wal"), 0)

        do {
            _ = try await database.record(NewCheckIn(id: .random(), at: instant(wall: 2), source: .button))
            XCTFail("a write whose log was replaced must be refused")
        } catch {
            XCTAssertEqual(error.kind, .moved)
            XCTAssertTrue(error.message.contains("is a different file now"), error.message)
        }
        let report = try await database.recover()
        guard case let .logDisplaced(movedTo?) = report.found else { return XCTFail("\(report)") }
        XCTAssertEqual(try directory.read(movedTo), foreign, "the foreign file is kept as it was")
        XCTAssertEqual(try Self.checkInIDs(atPath: path), [recorded.id])
        let integrity = try await database.integrityCheck()
        XCTAssertEqual(integrity, ["ok"])
        _ = try await database.record(NewCheckIn(id: .random(), at: instant(wall: 3), source: .button))
        await database.close()
    }

    // MARK: Replaced

    func testAFileReplacedByAnotherStoreIsMergedInto() async throws {
        let database = try await CheckInDatabase.open(path: path)
        let mine = [
            try await database.record(NewCheckIn(id: .random(), at: instant(wall: 1), source: .button)),
            try await database.record(NewCheckIn(id: .random(), at: instant(wall: 2), source: .button)),
        ]
        let otherPath = directory.file("other.sqlite")
        let other = try await CheckInDatabase.open(path: otherPath)
        let theirs = try await other.record(NewCheckIn(id: .random(), at: instant(wall: 9), source: .cli))
        let settings = StoredSettings(settings: .default, version: 42, appliedFromConfig: nil)
        try await other.saveSettings(settings)
        _ = try await other.record(mine[0].newCheckIn)  // one row both have
        await other.close()
        XCTAssertEqual(rename(otherPath, path), 0)

        do {
            _ = try await database.record(NewCheckIn(id: .random(), at: instant(wall: 3), source: .button))
            XCTFail("a write to a replaced store must be refused")
        } catch {
            XCTAssertEqual(error.kind, .moved)
            XCTAssertTrue(error.message.contains("is a different file now"), error.message)
        }
        let report = try await database.recover()
        XCTAssertEqual(report.found, .otherStore)
        XCTAssertEqual(report.copied["check_ins"], 1, report.description)
        XCTAssertEqual(report.alreadyPresent["check_ins"], 1)
        XCTAssertEqual(report.renumbered["check_ins"], 1, "its insertion order 2 was taken by the other store's")

        // The file at the path keeps its own rows (and settings) and gains ours, appended.
        let history = try await database.history(limit: 10).map(\.id)
        XCTAssertEqual(history, [mine[1].id, mine[0].id, theirs.id])
        let loaded = try await database.loadSettings()
        XCTAssertEqual(loaded, settings)
        _ = try await database.record(NewCheckIn(id: .random(), at: instant(wall: 4), source: .button))
        XCTAssertEqual(try Self.checkInIDs(atPath: path).count, 4)
        await database.close()
    }

    func testAFileReplacedByGarbageIsMovedAsideAndAFreshStoreGetsTheRows() async throws {
        let database = try await CheckInDatabase.open(path: path)
        let recorded = try await database.record(NewCheckIn(id: .random(), at: instant(wall: 1), source: .button))
        let garbage = Array("not a database at all".utf8) + [UInt8](repeating: 0x17, count: 5000)
        try directory.write(garbage, to: directory.file("garbage"))
        XCTAssertEqual(rename(directory.file("garbage"), path), 0)

        do {
            _ = try await database.record(NewCheckIn(id: .random(), at: instant(wall: 2), source: .button))
            XCTFail("a write to a replaced store must be refused")
        } catch {
            XCTAssertEqual(error.kind, .moved)
        }
        let report = try await database.recover()
        guard case let .damaged(movedTo) = report.found else { return XCTFail("\(report)") }
        XCTAssertEqual(try directory.read(movedTo), garbage, "the damaged file is kept, byte for byte")
        XCTAssertEqual(report.copied["check_ins"], 1)
        XCTAssertEqual(try Self.checkInIDs(atPath: path), [recorded.id])
        _ = try await database.record(NewCheckIn(id: .random(), at: instant(wall: 3), source: .button))
        await database.close()
    }

    func testANewerSchemaFileIsRefusedAndTheOldHandleKeptUntilTheFileIsMovedAway() async throws {
        let database = try await CheckInDatabase.open(path: path)
        let recorded = try await database.record(NewCheckIn(id: .random(), at: instant(wall: 1), source: .button))
        let newerPath = directory.file("newer.sqlite")
        do {
            let newer = try Connection(path: newerPath)
            try newer.execute("CREATE TABLE from_the_future (x INTEGER)")
            try newer.pragma("user_version", set: "99")
        }
        let newerBytes = try directory.read(newerPath)
        XCTAssertEqual(rename(newerPath, path), 0)

        do {
            _ = try await database.record(NewCheckIn(id: .random(), at: instant(wall: 2), source: .button))
            XCTFail("a write to a replaced store must be refused")
        } catch {
            XCTAssertEqual(error.kind, .moved)
        }
        do {
            _ = try await database.recover()
            XCTFail("a newer release's file must not be taken over")
        } catch {
            XCTAssertEqual(error.kind, .newerSchema, error.message)
        }
        XCTAssertEqual(try directory.read(path), newerBytes, "the newer file is left as it was")
        let stillRefused = await database.needsRecovery
        XCTAssertTrue(stillRefused)
        let history = try await database.history(limit: 10)
        XCTAssertEqual(history, [recorded], "the old handle still answers reads")

        // The operator moves the newer file away: recovering again works.
        XCTAssertEqual(rename(path, directory.file("from-newer-release.sqlite")), 0)
        let report = try await database.recover()
        XCTAssertEqual(report.found, .missing)
        XCTAssertEqual(try Self.checkInIDs(atPath: path), [recorded.id])
        _ = try await database.record(NewCheckIn(id: .random(), at: instant(wall: 3), source: .button))
        await database.close()
    }

    func testRecoveringAStoreThatDidNotMoveChangesNothing() async throws {
        let database = try await CheckInDatabase.open(path: path)
        _ = try await database.record(NewCheckIn(id: .random(), at: instant(wall: 1), source: .button))
        let report = try await database.recover()
        XCTAssertEqual(report.found, .inPlace)
        XCTAssertEqual(report.copiedRowCount, 0)
        await database.close()
    }

    /// A migration that adds a table must teach the copy about it.
    func testTheCopyKnowsEveryTableOfTheSchema() async throws {
        let database = try await CheckInDatabase.open(path: path)
        await database.close()
        let connection = try Connection(path: path)
        XCTAssertEqual(try RowCopy.tableNames(connection), Set(RowCopy.tables.map(\.name)))
    }

    // MARK: Helpers

    /// Records a check-in through the store's own write path, deleting the store's files inside
    /// the transaction, as another process's `rm` between the check and the COMMIT would.
    private static func recordWhileTheFilesAreDeleted(_ new: NewCheckIn, _ database: isolated CheckInDatabase)
        throws(StoreFailure) {
        try database.write("record check-in \(new.id)") { () throws(SQLiteError) in
            for suffix in ["", "-wal", "-shm"] { unlink(database.path + suffix) }
            let insert = try database.connection.prepare(CheckInDatabase.insertSQL(into: "check_ins"))
            try CheckInDatabase.bindQueued(insert, id: new.id, at: new.at, source: new.source.rawValue)
        }
    }

    /// Puts a row in every table but check_ins.
    private func fillEveryOtherTable(_ database: CheckInDatabase) async throws {
        try await database.saveSettings(StoredSettings(settings: .default, version: 3, appliedFromConfig: .default))
        _ = try await database.savePings([PendingPing(id: "ping-1", responderID: "r", responderName: "Ann", createdAt: "2026-11-20T10:00:00Z")])
        let answering = NewCheckIn(id: .random(), at: instant(wall: 2), source: .button)
        _ = try await database.record(answering, answering: [PingResponse(id: .random(), pingID: "ping-1", checkInID: answering.id,
                                                                          at: WallTime(secondsSinceEpoch: 5))])
        let alert = try await database.recordAlert(AlertRecord(id: .random(), at: instant(wall: 7), source: .button))
        try await database.mergeNotifications(NotificationPage(
            notifications: [AppNotification(id: "n-1", type: .ping, createdAt: WallTime(secondsSinceEpoch: 8), title: "Are you OK?")],
            cursor: "cursor-1"))
        _ = try await database.applyNotificationChange(NotificationChange(id: "c-1", operation: .markRead, notificationID: "n-1",
                                                                          at: WallTime(secondsSinceEpoch: 9)))
        try await database.saveNotificationPreferences(NotificationPreferences(filter: .ping, unreadOnly: true))
        try await database.registerDeliveryTarget("healthchecks")
        try await database.markDelivered(target: "healthchecks", ids: [answering.id], at: WallTime(secondsSinceEpoch: 10))
        try await database.registerAlertDeliveryTarget("healthchecks-alert")
        try await database.markAlertsDelivered(target: "healthchecks-alert", ids: [alert.id], at: WallTime(secondsSinceEpoch: 11))
        try await database.appendDeviceEvent(DeviceEvent(id: .random(), entity: "check_in", payload: #"{"event_type":"check_in"}"#,
                                                         at: WallTime(secondsSinceEpoch: 11)))
        try await database.startAway(AwayPeriod(id: .random(), start: instant(wall: 12), duration: .seconds(3600), source: .cli),
                                     settings: nil)
        _ = try await database.recordPowerEvent(PowerEvent(id: .random(), at: instant(wall: 13), kind: .onBattery))
        _ = try await database.markRunStarted(instant(wall: 14))
        try await database.addDependent(DependentEntry(name: "Mum", source: .mqtt(baseTopic: "lifesignal/mum"), heartbeat: .seconds(180)))
        try await database.saveDependentsSortOption(.deadline)
        try await database.removeWatcher(RemovedWatcher(id: "kitchen-1", name: "Anna", removedAt: WallTime(secondsSinceEpoch: 15)))
    }

    /// Every row of every table, through the database's own connection.
    private static func rows(_ database: isolated CheckInDatabase) throws -> [String: [[SQLiteValue]]] {
        try rows(database.connection)
    }

    private static func rows(atPath path: String) throws -> [String: [[SQLiteValue]]] {
        try rows(Connection(path: path, mode: .readOnly))
    }

    private static func rows(_ connection: Connection) throws -> [String: [[SQLiteValue]]] {
        var tables: [String: [[SQLiteValue]]] = [:]
        for table in RowCopy.tables {
            let select = try connection.prepare("SELECT * FROM \(table.name) ORDER BY \(table.key.joined(separator: ", "))")
            var rows: [[SQLiteValue]] = []
            while try select.step() {
                rows.append(try (0..<select.columnCount).map { try select.value(at: $0) })
            }
            tables[table.name] = rows
        }
        return tables
    }

    /// The check-ins in the file at `path`, oldest first; `withoutWAL` reads a copy of the main
    /// file alone.
    private static func checkInIDs(atPath path: String, withoutWAL: Bool = false) throws -> [CheckInID] {
        var file = path
        if withoutWAL {
            file = path + ".main-only"
            let source = open(path, O_RDONLY), target = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            defer { close(source); close(target) }
            var buffer = [UInt8](repeating: 0, count: 65536)
            while case let count = buffer.withUnsafeMutableBytes({ read(source, $0.baseAddress, $0.count) }), count > 0 {
                _ = buffer.withUnsafeBytes { write(target, $0.baseAddress, count) }
            }
        }
        let connection = try Connection(path: file, mode: withoutWAL ? .readWriteCreate : .readOnly)
        let select = try connection.prepare("SELECT id FROM check_ins ORDER BY insertion_order")
        var ids: [CheckInID] = []
        while try select.step() { ids.append(try XCTUnwrap(CheckInID(try select.text(at: 0)))) }
        return ids
    }
}

private extension CheckInRecord {
    var newCheckIn: NewCheckIn { NewCheckIn(id: id, at: at, source: source) }
}
