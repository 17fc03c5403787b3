import CheckInModels
import CheckInStoreClient
@testable import CheckInStoreLive
import Glibc
import SQLiteDatabase
import TestSupport
import XCTest

/// The write-ahead log is moved into the main file after writes (never inside one), stays small,
/// and gives its space back once a full disk has room again; the probe finds a full disk first.
/// The memory opening and checkpoints freed goes back too, and the page cache is bounded.
final class CheckpointTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var path: String { directory.file("checkins.sqlite") }

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
    }

    override func tearDown() {
        directory.remove()
    }

    func testAfterAThousandCheckInsTheMainFileHoldsAllButTheLastFewAndTheWALIsSmall() async throws {
        let database = try await CheckInDatabase.open(path: path)
        let autocheckpoint = try await database.pragma("wal_autocheckpoint")
        XCTAssertEqual(autocheckpoint, "0", "SQLite's own checkpoint would run inside a commit")
        for step in 0..<1000 {
            _ = try await database.record(NewCheckIn(id: .random(), at: instant(wall: Int64(step)), source: .button))
        }
        await database.waitUntilIdle()

        // The main file alone, as if the WAL were lost: copy it aside without its -wal.
        let mainOnly = directory.file("main-only.sqlite")
        try directory.write(try directory.read(path), to: mainOnly)
        let inspector = try Connection(path: mainOnly)
        let count = try inspector.prepare("SELECT count(*) FROM check_ins")
        _ = try count.step()
        let inMainFile = try count.int64(at: 0)
        let walSize = try XCTUnwrap(DatabaseFiles.fileSize(path + "-wal"))
        print("after 1,000 check-ins: main file \(try XCTUnwrap(DatabaseFiles.fileSize(path)) / 1024) KiB holding "
            + "\(inMainFile) of them, WAL \(walSize / 1024) KiB")
        XCTAssertGreaterThanOrEqual(inMainFile, Int64(1000 - CheckpointPolicy().commitsPerCheckpoint),
                                    "the main file must hold all but the last few commits")
        // Back to back, a few checkpoints wait for the next idle moment; the WAL still stays small.
        XCTAssertLessThanOrEqual(walSize, CheckpointPolicy().walSizeLimit, "the WAL must stay small")
        let all = try await database.count()
        XCTAssertEqual(all, 1000)
        await database.close()
    }

    /// Disk full because of the store's own writes; then space comes back (another file on the
    /// same disk is deleted). The next write and probe work without reopening anything, and the
    /// WAL shrinks back instead of keeping the disk full.
    func testADiskFilledByTheStoreRecoversByItselfOnceSpaceIsFreedAndTheWALShrinks() async throws {
        let disk = try directory.mountTinyFilesystem("tiny", size: "512k")
        let file = disk + "/checkins.sqlite"
        let filler = disk + "/filler"
        try directory.write(Array(repeating: 0xA5, count: 256 * 1024), to: filler)
        let database = try await CheckInDatabase.open(path: file)

        var confirmed: [CheckInRecord] = []
        var failure: StoreFailure?
        for step in 0..<2000 {
            // Padded rows fill the disk in few steps.
            let boot = String(repeating: "x", count: 3000) + String(step)
            do {
                confirmed.append(try await database.record(
                    NewCheckIn(id: .random(), at: instant(wall: Int64(step), boot: boot), source: .button)))
            } catch {
                failure = error
                break
            }
        }
        XCTAssertEqual(try XCTUnwrap(failure, "the disk must fill up").kind, .full)
        await database.waitUntilIdle()
        // The refused write's frames may have left room for a page at the WAL's end; the probe must
        // not take that for a disk with room.
        do {
            try await database.probe()
            XCTFail("the probe must find the disk still full")
        } catch {
            XCTAssertEqual(error.kind, .full, error.message)
        }
        do {
            _ = try await database.record(
                NewCheckIn(id: .random(), at: instant(wall: 5000, boot: String(repeating: "y", count: 3000)), source: .button))
            XCTFail("a check-in must still be refused while the disk is full")
        } catch {
            XCTAssertEqual(error.kind, .full, error.message)
        }

        XCTAssertEqual(unlink(filler), 0)
        try await database.probe()
        await database.waitUntilIdle()
        // Truncated, then started over with a page or two (the restart's, and the probe's when the
        // probe committed after the truncation): a few KiB where the full disk had left ~300 KiB.
        let walSize = try XCTUnwrap(DatabaseFiles.fileSize(file + "-wal"))
        XCTAssertLessThanOrEqual(walSize, 32 + 2 * (24 + 4096), "the WAL gave its space back")
        XCTAssertLessThanOrEqual(try XCTUnwrap(DatabaseFiles.fileSize(file + "-shm")), 32 * 1024)

        let after = try await database.record(NewCheckIn(id: .random(), at: instant(wall: 9999), source: .button))
        let history = try await database.history(limit: 5000)
        XCTAssertEqual(history, [after] + confirmed.reversed(), "every confirmed check-in is kept, nothing else")
        await database.close()
    }

    func testTheProbeWritesDurablyAndPassesOnAHealthyStore() async throws {
        let owner = try CheckInStoreOwner(path: path)
        let database = try await owner.probe()
        let walBefore = try XCTUnwrap(DatabaseFiles.fileSize(path + "-wal"))
        try await database.probe()
        let walAfter = try XCTUnwrap(DatabaseFiles.fileSize(path + "-wal"))
        XCTAssertGreaterThan(walAfter, walBefore, "the probe commits a page to the WAL, as a check-in does")
        let version = try await database.pragma("user_version")
        XCTAssertEqual(version, String(Schema.latestVersion), "the probe leaves the schema version as it was")
        await owner.close()
    }

    /// At start-up, before anyone presses: the store opens (or not) and the probe says `.full`.
    func testAFullDiskAtStartIsFoundByTheProbe() async throws {
        let disk = try directory.mountTinyFilesystem("tiny", size: "512k")
        let file = disk + "/checkins.sqlite"
        do {
            let database = try await CheckInDatabase.open(path: file)
            _ = try await database.record(NewCheckIn(id: .random(), at: instant(wall: 1), source: .button))
            await database.close()
        }
        try fill(disk)

        let owner = try CheckInStoreOwner(path: file)
        do {
            try await owner.probe()
            XCTFail("a full disk must fail the probe")
        } catch {
            XCTAssertEqual(error.kind, .full, error.message)
            XCTAssertTrue(error.message.contains(file), error.message)
        }
        await owner.close()
    }

    /// Open while there is room, then the disk fills from elsewhere: the probe says so before a press does.
    func testTheProbeFindsADiskThatFilledWhileTheStoreWasOpen() async throws {
        let disk = try directory.mountTinyFilesystem("tiny", size: "512k")
        let file = disk + "/checkins.sqlite"
        let owner = try CheckInStoreOwner(path: file)
        try await owner.probe()
        await owner.database?.waitUntilIdle()
        try fill(disk)
        do {
            try await owner.probe()
            XCTFail("a full disk must fail the probe")
        } catch {
            XCTAssertEqual(error.kind, .full, error.message)
        }
        await owner.close()
    }

    /// Writes a file until the filesystem has no byte left.
    private func fill(_ disk: String) throws {
        let descriptor = open(disk + "/filler", O_WRONLY | O_CREAT | O_APPEND, 0o600)
        guard descriptor >= 0 else { throw TestFailure("open filler: \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        for chunk in [65536, 4096, 512, 1] {
            let bytes = [UInt8](repeating: 0x5A, count: chunk)
            while bytes.withUnsafeBytes({ write(descriptor, $0.baseAddress, chunk) }) == chunk {}
        }
        XCTAssertEqual(errno, ENOSPC)
    }

    // MARK: What the store keeps in memory: a bounded page cache, and none of the pages that
    // opening or a checkpoint freed.

    func testThePageCacheIsBoundedRatherThanSQLitesTwoMebibytes() async throws {
        let database = try await CheckInDatabase.open(path: path)
        let cacheSize = try await database.pragma("cache_size")
        XCTAssertEqual(cacheSize, String(-CheckInDatabase.pageCacheKiB), "negative: a size in KiB, not in pages")
        XCTAssertLessThanOrEqual(CheckInDatabase.pageCacheKiB, 512)
        await database.close()
    }

    /// Freed memory goes back once after the open and once after each complete checkpoint, at an
    /// idle moment; never after a plain read or write, whose next press would fault the pages in
    /// again inside its acknowledgement.
    func testFreedMemoryGoesBackAfterOpeningAndAfterACheckpointButNotAfterEveryWrite() async throws {
        let database = try await CheckInDatabase.open(path: path)
        await database.waitUntilIdle()
        var returns = await database.freedMemoryReturns
        XCTAssertEqual(returns, 1, "once the opened store is idle")

        _ = try await database.count()
        await database.waitUntilIdle()
        returns = await database.freedMemoryReturns
        XCTAssertEqual(returns, 1, "not after a read")

        let belowTheRule = CheckpointPolicy().commitsPerCheckpoint - 1
        for step in 0..<belowTheRule {
            _ = try await database.record(NewCheckIn(id: .random(), at: instant(wall: Int64(step)), source: .button))
            await database.waitUntilIdle()
        }
        returns = await database.freedMemoryReturns
        XCTAssertEqual(returns, 1, "not after writes that leave the checkpoint for later")

        _ = try await database.record(NewCheckIn(id: .random(), at: instant(wall: 100), source: .button))
        await database.waitUntilIdle()
        let behind = await database.checkpoints.commitsBehind
        XCTAssertEqual(behind, 0, "the commit that reaches the rule is followed by a complete checkpoint")
        returns = await database.freedMemoryReturns
        XCTAssertEqual(returns, 2, "after the checkpoint")
        await database.close()
    }
}
