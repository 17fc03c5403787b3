import CheckInModels
import CheckInStoreClient
@testable import CheckInStoreLive
import TestSupport
import XCTest

/// What the store keeps in memory for the daemon's life: a bounded page cache, and none of the
/// pages that opening or a checkpoint freed.
final class StoreMemoryTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var path: String { directory.file("checkins.sqlite") }

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
    }

    override func tearDown() {
        directory.remove()
    }

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
        XCTAssertEqual(behind, 0, "the fourth commit's idle moment runs a complete checkpoint")
        returns = await database.freedMemoryReturns
        XCTAssertEqual(returns, 2, "after the checkpoint")
        await database.close()
    }
}
