import Glibc
import SQLiteDatabase
import TestSupport
import XCTest

/// The SQLite wrapper on real files.
final class ConnectionTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
    }

    override func tearDown() {
        directory.remove()
    }

    private func openTable() throws -> Connection {
        let connection = try Connection(path: directory.file("wrapper.sqlite"))
        try connection.execute("CREATE TABLE t (n INTEGER, s TEXT, b INTEGER)")
        return connection
    }

    func testUnsyncedCommitsRunAtNormalAndTheLevelBeforeIsBackAfterwardsEvenWhenTheBodyThrows() throws {
        let connection = try openTable()
        try connection.pragma("synchronous", set: "FULL")
        let inside = try connection.withUnsyncedCommits { () throws(SQLiteError) -> String? in
            try connection.transaction { () throws(SQLiteError) in try connection.execute("INSERT INTO t (n) VALUES (1)") }
            return try connection.pragma("synchronous")
        }
        XCTAssertEqual(inside, "1", "NORMAL inside, its own transaction included")
        XCTAssertEqual(try connection.pragma("synchronous"), "2")
        XCTAssertThrowsError(try connection.withUnsyncedCommits { () throws(SQLiteError) in
            try connection.transaction { () throws(SQLiteError) in try connection.execute("INSERT INTO missing (n) VALUES (1)") }
        })
        XCTAssertEqual(try connection.pragma("synchronous"), "2")
        let count = try connection.prepare("SELECT count(*) FROM t")
        _ = try count.step()
        XCTAssertEqual(try count.int64(at: 0), 1)
    }

    func testTypedBindsRoundTripThroughColumnReads() throws {
        let connection = try openTable()
        let insert = try connection.prepare("INSERT INTO t (n, s, b) VALUES (?1, ?2, ?3)")
        let rows: [(Int64?, String?, Bool?)] = [
            (Int64.min, "grüße \u{0}after-nul", true),
            (Int64.max, "", false),
            (nil, nil, nil),
        ]
        for (number, text, flag) in rows {
            insert.reset()
            try insert.bind(number, at: 1)
            try insert.bind(text, at: 2)
            try insert.bind(flag, at: 3)
            XCTAssertFalse(try insert.step())
        }

        let select = try connection.prepare("SELECT n, s, b FROM t ORDER BY rowid")
        var read: [(Int64?, String?, Bool?)] = []
        while try select.step() {
            let flag: Bool? = select.isNull(at: 2) ? nil : try select.bool(at: 2)
            read.append((try select.optionalInt64(at: 0), try select.optionalText(at: 1), flag))
        }
        XCTAssertEqual(read.count, rows.count)
        for (expected, actual) in zip(rows, read) {
            XCTAssertEqual(expected.0, actual.0)
            XCTAssertEqual(expected.1, actual.1)
            XCTAssertEqual(expected.2, actual.2)
        }
    }

    func testVariadicBindMatchesParametersInOrder() throws {
        let connection = try openTable()
        let insert = try connection.prepare("INSERT INTO t (n, s, b) VALUES (?, ?, ?)")
        try insert.bind(.integer(7), .text("seven"), .bool(true))
        try insert.step()
        try insert.bind(.integer(orNull: nil), .text(orNull: nil), .null)
        try insert.step()
        XCTAssertEqual(connection.changes, 1)

        let select = try connection.prepare("SELECT count(*) FROM t WHERE n = 7 AND s = 'seven' AND b = 1")
        try select.step()
        XCTAssertEqual(try select.int64(at: 0), 1)
        let nulls = try connection.prepare("SELECT count(*) FROM t WHERE n IS NULL AND s IS NULL AND b IS NULL")
        try nulls.step()
        XCTAssertEqual(try nulls.int64(at: 0), 1)
    }

    func testReadingTheWrongTypeThrowsInsteadOfReturningZero() throws {
        let connection = try openTable()
        try connection.execute("INSERT INTO t (n, s, b) VALUES (NULL, 'text', 5)")
        let select = try connection.prepare("SELECT n, s, b FROM t")
        XCTAssertTrue(try select.step())
        XCTAssertThrowsError(try select.int64(at: 0)) { XCTAssertEqual(($0 as? SQLiteError)?.code, .mismatch) }
        XCTAssertThrowsError(try select.int64(at: 1)) { XCTAssertEqual(($0 as? SQLiteError)?.code, .mismatch) }
        XCTAssertThrowsError(try select.bool(at: 2)) { XCTAssertEqual(($0 as? SQLiteError)?.code, .mismatch) }
        XCTAssertThrowsError(try select.text(at: 3)) { XCTAssertEqual(($0 as? SQLiteError)?.code, .range) }
    }

    func testErrorsCarryOperationPathCodesAndSQLiteMessage() throws {
        let connection = try openTable()
        XCTAssertThrowsError(try connection.prepare("SELEKT 1")) { error in
            guard let error = error as? SQLiteError else { return XCTFail("not an SQLiteError: \(error)") }
            XCTAssertEqual(error.code.primary, .error)
            XCTAssertEqual(error.path, connection.path)
            XCTAssertTrue(error.operation.contains("SELEKT"), error.operation)
            XCTAssertTrue(error.message.contains("syntax error"), error.message)
            XCTAssertTrue(error.description.contains(connection.path), error.description)
        }
        XCTAssertThrowsError(try connection.prepare("SELECT 1; SELECT 2")) {
            XCTAssertEqual(($0 as? SQLiteError)?.code, .misuse)
        }
    }

    func testConstraintViolationReportsTheExtendedCode() throws {
        let connection = try Connection(path: directory.file("constraint.sqlite"))
        try connection.execute("CREATE TABLE k (id TEXT PRIMARY KEY NOT NULL, v INTEGER CHECK (v > 0))")
        try connection.execute("INSERT INTO k VALUES ('a', 1)")
        XCTAssertThrowsError(try connection.execute("INSERT INTO k VALUES ('a', 2)")) { error in
            XCTAssertEqual((error as? SQLiteError)?.code, .constraintPrimaryKey)
            XCTAssertEqual((error as? SQLiteError)?.code.primary, .constraint)
        }
        XCTAssertThrowsError(try connection.execute("INSERT INTO k VALUES ('b', 0)")) { error in
            XCTAssertEqual((error as? SQLiteError)?.code, .constraintCheck)
        }
    }

    func testOpeningInAMissingDirectoryFailsWithCantOpenAndErrno() {
        let path = directory.file("missing/wrapper.sqlite")
        XCTAssertThrowsError(try Connection(path: path)) { error in
            guard let error = error as? SQLiteError else { return XCTFail("not an SQLiteError: \(error)") }
            XCTAssertEqual(error.code.primary, .cantOpen)
            XCTAssertEqual(error.operation, "open")
            XCTAssertEqual(error.path, path)
            XCTAssertEqual(error.systemErrno, ENOENT)
        }
    }

    func testTransactionCommitsOnSuccessAndRollsBackOnError() throws {
        let connection = try openTable()
        try connection.transaction { () throws(SQLiteError) in
            try connection.execute("INSERT INTO t (n) VALUES (1)")
        }
        XCTAssertThrowsError(try connection.transaction { () throws(SQLiteError) in
            try connection.execute("INSERT INTO t (n) VALUES (2)")
            try connection.execute("INSERT INTO no_such_table VALUES (3)")
        })
        XCTAssertFalse(connection.isInTransaction)
        let select = try connection.prepare("SELECT group_concat(n) FROM t")
        try select.step()
        XCTAssertEqual(try select.text(at: 0), "1")
    }

    func testTransactionTakesTheWriteLockAtBegin() throws {
        let path = directory.file("locks.sqlite")
        let writer = try Connection(path: path)
        try writer.pragma("journal_mode", set: "WAL")
        try writer.execute("CREATE TABLE t (n INTEGER)")
        let other = try Connection(path: path, busyTimeout: .milliseconds(1))
        try writer.execute("BEGIN IMMEDIATE")
        defer { try? writer.execute("ROLLBACK") }
        // BEGIN IMMEDIATE itself must fail while another connection holds the write lock, before
        // the body could write anything.
        var bodyRan = false
        XCTAssertThrowsError(try other.transaction { () throws(SQLiteError) in bodyRan = true }) { error in
            XCTAssertEqual((error as? SQLiteError)?.code.primary, .busy)
        }
        XCTAssertFalse(bodyRan)
    }

    func testPragmasReadBackAndRefuseAnythingButPlainWords() throws {
        let connection = try Connection(path: directory.file("pragma.sqlite"), busyTimeout: .milliseconds(1500))
        XCTAssertEqual(try connection.pragma("busy_timeout"), "1500")
        XCTAssertEqual(try connection.pragma("journal_mode", set: "WAL"), "wal")
        try connection.pragma("synchronous", set: "FULL")
        XCTAssertEqual(try connection.pragma("synchronous"), "2")
        try connection.pragma("user_version", set: "42")
        XCTAssertEqual(try connection.pragma("user_version"), "42")
        XCTAssertEqual(try connection.pragmaRows("integrity_check"), ["ok"])
        XCTAssertThrowsError(try connection.pragma("user_version", set: "1; DROP TABLE x")) {
            XCTAssertEqual(($0 as? SQLiteError)?.code, .misuse)
        }
    }

    func testReadOnlyConnectionRefusesWrites() throws {
        let path = directory.file("readonly.sqlite")
        try Connection(path: path).execute("CREATE TABLE t (n INTEGER)")
        let reader = try Connection(path: path, mode: .readOnly)
        XCTAssertTrue(reader.isReadOnly)
        XCTAssertThrowsError(try reader.execute("INSERT INTO t VALUES (1)")) { error in
            XCTAssertEqual((error as? SQLiteError)?.code.primary, .readOnly)
        }
    }
}
