@testable import CheckInStoreLive
import XCTest

/// The rule for when the write-ahead log moves into the main file, on its own.
final class CheckpointPolicyTests: XCTestCase {
    private let small: Int64 = 16 * 1024

    func testNothingIsDueBeforeAnyWrite() {
        let policy = CheckpointPolicy()
        XCTAssertNil(policy.next(walFileSize: nil))
        XCTAssertNil(policy.next(walFileSize: 10 * 1024 * 1024), "a large WAL alone, with no write since, waits for one")
    }

    func testAPassiveCheckpointFollowsEveryFewCommitsNotEachOne() {
        var policy = CheckpointPolicy()
        policy.commitsPerCheckpoint = 4
        for _ in 0..<3 {
            policy.committed()
            XCTAssertNil(policy.next(walFileSize: small))
        }
        policy.committed()
        XCTAssertEqual(policy.next(walFileSize: small), .passive)
        policy.ran(.passive, complete: true)
        XCTAssertNil(policy.next(walFileSize: small), "done until the next commits")
        XCTAssertEqual(policy.commitsBehind, 0)
    }

    func testAnIncompleteCheckpointIsTriedAgainAfterTheNextCommitNotAtEveryIdleMoment() {
        var policy = CheckpointPolicy()
        policy.commitsPerCheckpoint = 1
        policy.committed()
        XCTAssertEqual(policy.next(walFileSize: small), .passive)
        policy.ran(.passive, complete: false)  // a reader held some frames back
        XCTAssertNil(policy.next(walFileSize: small), "reads alone do not retry it")
        policy.committed()
        XCTAssertEqual(policy.next(walFileSize: small), .passive)
        XCTAssertEqual(policy.commitsBehind, 2)
    }

    func testAWALGrownPastTheLimitIsTruncated() {
        var policy = CheckpointPolicy()
        policy.committed()
        XCTAssertEqual(policy.next(walFileSize: policy.walSizeLimit + 1), .truncate)
        XCTAssertNil(policy.next(walFileSize: policy.walSizeLimit), "at the limit, one commit behind: nothing yet")
    }

    func testAFailedWriteTruncatesAtTheNextChanceUntilATruncateCompletes() {
        var policy = CheckpointPolicy()
        policy.writeFailed()  // e.g. the disk is full
        XCTAssertEqual(policy.next(walFileSize: small), .truncate)
        policy.failed()  // the checkpoint cannot run either (the main file cannot grow)
        XCTAssertNil(policy.next(walFileSize: small), "not retried until something is written again")
        policy.committed()  // space came back: a write (the probe, a press) succeeded
        XCTAssertEqual(policy.next(walFileSize: small), .truncate)
        policy.ran(.truncate, complete: true)
        policy.committed()
        XCTAssertNil(policy.next(walFileSize: small), "back to passive checkpoints every few commits")
    }

    func testAPassiveCheckpointDoesNotClearAPendingTruncate() {
        var policy = CheckpointPolicy()
        policy.writeFailed()
        policy.ran(.passive, complete: true)
        policy.committed()
        XCTAssertEqual(policy.next(walFileSize: small), .truncate)
    }
}
