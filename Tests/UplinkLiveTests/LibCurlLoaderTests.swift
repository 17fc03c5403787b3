import UplinkLive
import XCTest

/// libcurl is loaded with dlopen only when the uplink needs it; a missing or wrong library is an
/// error that names the library, what failed and the Debian package to install, never a crash.
final class LibCurlLoaderTests: XCTestCase {
    func testAMissingLibraryNamesItselfTheLoadersReasonAndThePackage() {
        let soname = "libcurl-lifesignal-missing.so.4"
        XCTAssertThrowsError(try LibCurl.load(soname: soname)) { error in
            guard let failure = error as? LibCurlUnavailable else { return XCTFail("unexpected error \(error)") }
            XCTAssertEqual(failure.library, soname)
            XCTAssertEqual(failure.step, .open)
            XCTAssertTrue(failure.reason.contains("cannot open shared object file"), failure.reason)
            XCTAssertTrue(failure.description.contains(soname), failure.description)
            XCTAssertTrue(failure.description.contains("libcurl4"), failure.description)
        }
    }

    func testALibraryWithoutCurlsFunctionsNamesTheFirstMissingOne() {
        // A real shared library that is certainly installed (the store links it), but not libcurl.
        let soname = "libsqlite3.so.0"
        XCTAssertThrowsError(try LibCurl.load(soname: soname)) { error in
            guard let failure = error as? LibCurlUnavailable else { return XCTFail("unexpected error \(error)") }
            XCTAssertEqual(failure.step, .function("curl_global_init"))
            XCTAssertTrue(failure.reason.contains("curl_global_init"), failure.reason)
            XCTAssertTrue(failure.description.contains("\(soname) has no function curl_global_init"), failure.description)
            XCTAssertTrue(failure.description.contains("libcurl4"), failure.description)
        }
    }

    func testTheInstalledLibcurlHasEveryFunctionTheUplinkCalls() throws {
        let curl = try LibCurl.load()
        XCTAssertTrue(curl.versionText.hasPrefix("libcurl/"), curl.versionText)
        XCTAssertTrue(try LibCurl.shared().versionText.hasPrefix("libcurl/"))
    }
}
