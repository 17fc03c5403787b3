import CheckInModels
import TestSupport
import XCTest

/// Check-in ids are UUID v4 written by hand (no Foundation): the canonical form in, lowercase out,
/// nothing else accepted. They travel in the wire format and the store.
final class CheckInIDTests: XCTestCase {
    func testCheckInIDParsesTheCanonicalFormInAnyCaseAndPrintsItLowercase() throws {
        let id = try XCTUnwrap(CheckInID("123e4567-e89b-42d3-a456-426614174000"))
        XCTAssertEqual(id, CheckInID(high: 0x123E_4567_E89B_42D3, low: 0xA456_4266_1417_4000))
        XCTAssertEqual(CheckInID("123E4567-E89B-42D3-A456-426614174000"), id)
        XCTAssertEqual(id.description, "123e4567-e89b-42d3-a456-426614174000")
        XCTAssertEqual(CheckInID(high: 0, low: 0).description, "00000000-0000-0000-0000-000000000000")
        XCTAssertEqual(CheckInID(high: .max, low: .max).description, "ffffffff-ffff-ffff-ffff-ffffffffffff")
        var generator = SeededRandom(state: 0x1D_5EED)
        for _ in 0..<1000 {
            let random = CheckInID.random(using: &generator)
            XCTAssertEqual(CheckInID(random.description), random)
            XCTAssertEqual(CheckInID(Substring(random.description.uppercased())), random)
        }
    }

    func testCheckInIDRefusesAnythingButTheCanonicalForm() {
        for text in [
            "", "123e4567-e89b-42d3-a456-42661417400", "123e4567-e89b-42d3-a456-4266141740000",
            "123e4567e89b-42d3-a456-4266141740000", "123e4567-e89b-42d3-a456_426614174000",
            "123e4567-e89b-42d3-a456-42661417400g", "+23e4567-e89b-42d3-a456-426614174000",
            "123e4567-e89b-42d3-+456-426614174000", "123e4567-e89b-42d3-a456-42661417400é",
            "123e4567-e89b-42d3-a456-426614174000 ", "{123e4567-e89b-42d3-a456-426614174000}",
            "123e4567--e89b-42d3-a456-42661417400", "123e4567-e89b-42d3-a45-6426614174000",
        ] {
            XCTAssertNil(CheckInID(text), text)
        }
    }
}
