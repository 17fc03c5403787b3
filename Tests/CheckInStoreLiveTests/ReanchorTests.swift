import CheckInModels
import CheckInStoreLive
import TestSupport
import XCTest

/// Check-ins stamped before the wall clock was synchronised get their wall time re-anchored from
/// monotonic time once it is (docs/time.md), on the real SQL.
final class ReanchorTests: XCTestCase {
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
    }

    override func tearDown() {
        directory.remove()
    }

    func testOnlyUnsynchronisedCheckInsOfThisBootAreReanchoredFromMonotonicTime() async throws {
        let database = try await CheckInDatabase.open(path: directory.file("checkins.sqlite"))
        func at(_ wall: Int64, uptime: Int64, boot: String, synchronized: Bool) -> DeviceInstant {
            DeviceInstant(wall: WallTime(secondsSinceEpoch: wall), uptime: .seconds(uptime), bootID: boot,
                          wallClockSynchronized: synchronized)
        }
        let beforeSync = NewCheckIn(id: .random(), at: at(50, uptime: 50, boot: "b", synchronized: false), source: .button)
        let earlierBoot = NewCheckIn(id: .random(), at: at(40, uptime: 40, boot: "a", synchronized: false), source: .button)
        let alreadyTrusted = NewCheckIn(id: .random(), at: at(1_763_000_000, uptime: 60, boot: "b", synchronized: true),
                                        source: .cli)
        for checkIn in [earlierBoot, beforeSync, alreadyTrusted] { _ = try await database.record(checkIn) }

        let now = at(1_763_000_100, uptime: 100, boot: "b", synchronized: true)
        let changed = try await database.reanchorWallTimes(now: now)
        XCTAssertEqual(changed, 1)

        let byID = Dictionary(uniqueKeysWithValues: try await database.history(limit: 10).map { ($0.id, $0.at) })
        // wall = now.wall − (now.uptime − uptime) = 1_763_000_100 − 50.
        XCTAssertEqual(byID[beforeSync.id], at(1_763_000_050, uptime: 50, boot: "b", synchronized: true))
        XCTAssertEqual(byID[earlierBoot.id], earlierBoot.at, "another boot's uptime says nothing about now")
        XCTAssertEqual(byID[alreadyTrusted.id], alreadyTrusted.at)

        let again = try await database.reanchorWallTimes(now: now)
        XCTAssertEqual(again, 0, "re-anchoring is done once")
        var untrusted = now
        untrusted.wallClockSynchronized = false
        let refused = try await database.reanchorWallTimes(now: untrusted)
        XCTAssertEqual(refused, 0, "an unsynchronised clock re-anchors nothing")
    }
}
