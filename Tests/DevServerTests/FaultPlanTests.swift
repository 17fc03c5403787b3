import DeviceAPI
@testable import DevServer
import TestSupport
import XCTest

/// The reference backend's fault schedule: faults in order, each for its count of requests; a
/// fault that names an operation is met only by that operation's requests, the others pass it by.
final class FaultPlanTests: XCTestCase {
    var generator = SeededRandom(state: 0xFA_017)

    func testScheduledFaultsAreMetInOrderEachForItsCount() {
        var plan = FaultPlan()
        plan.apply(FaultUpdate(schedule: [Fault(.status, count: 2, status: 503), Fault(.drop)]))
        let met = (0..<4).map { _ in plan.next(for: "POST /v1/check-ins", using: &generator)?.kind }
        XCTAssertEqual(met, [.status, .status, .drop, nil])
    }

    func testAFaultNamingAnOperationIsMetOnlyByItsRequests() {
        var plan = FaultPlan()
        plan.apply(FaultUpdate(schedule: [Fault(.status, status: 503, operation: "POST /v1/check-ins"),
                                          Fault(.drop, operation: "POST /ping/")]))
        XCTAssertNil(plan.next(for: "GET /v1/settings", using: &generator), "the settings request passes both by")
        XCTAssertNil(plan.next(for: "POST /v1/heartbeat", using: &generator))
        XCTAssertEqual(plan.next(for: "POST /ping/key/slug", using: &generator)?.kind, .drop, "a prefix names every check")
        XCTAssertEqual(plan.next(for: "POST /v1/check-ins", using: &generator)?.status, 503)
        XCTAssertNil(plan.next(for: "POST /v1/check-ins", using: &generator), "each was met once")
    }

    func testARequestNoNamedFaultAppliesToTakesTheNextUnnamedOne() {
        var plan = FaultPlan()
        plan.apply(FaultUpdate(schedule: [Fault(.status, status: 429, operation: "POST /v1/alerts"), Fault(.malformedReply)]))
        XCTAssertEqual(plan.next(for: "GET /v1/pings", using: &generator)?.kind, .malformedReply)
        XCTAssertEqual(plan.next(for: "POST /v1/alerts", using: &generator)?.status, 429)
        XCTAssertNil(plan.next(for: "POST /v1/alerts", using: &generator))
    }

    func testClearForgetsEveryFaultAndAStandingErrorRateAppliesToAll() {
        var plan = FaultPlan()
        plan.apply(FaultUpdate(schedule: [Fault(.drop)], errorStatus: 502, rejectCheckInIDs: ["x"]))
        plan.apply(FaultUpdate(clear: true))
        XCTAssertNil(plan.next(for: "POST /v1/check-ins", using: &generator))
        XCTAssertEqual(plan.rejectedCheckInIDs, [])
        plan.apply(FaultUpdate(errorRate: 1, errorStatus: 502))
        XCTAssertEqual(plan.next(for: "GET /v1/settings", using: &generator)?.status, 502)
    }

    func testAnOperationTravelsInTheAdminAPIsJSON() throws {
        let body = Array(#"{"schedule":[{"kind":"status","count":1,"status":503,"operation":"POST /v1/check-ins"}]}"#.utf8)
        let update = try APICoding.decode(FaultUpdate.self, from: body).get()
        XCTAssertEqual(update.schedule, [Fault(.status, status: 503, operation: "POST /v1/check-ins")])
    }
}
