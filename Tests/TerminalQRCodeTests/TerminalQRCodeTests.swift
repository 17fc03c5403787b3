import LinuxIO
import TerminalQRCode
import XCTest

/// The QR code through the real libqrencode. Scanning it back needs a reader the project does not
/// have, so the matrix is held to the QR specification's fixed parts (size, finder and timing
/// patterns) and the drawing to the matrix, module by module.
final class TerminalQRCodeTests: XCTestCase {
    static let code = "LS1-000J-6HB7-H6NN-MKBN-DMF9-3"

    func testAPairingCodeIsTheSmallestSymbolThatHoldsIt() throws {
        let matrix = try LibQRencode.load().encode(Self.code)
        // 30 alphanumeric characters: version 1 holds 20 at level M, version 2 holds 38.
        XCTAssertEqual(matrix.version, 2)
        XCTAssertEqual(matrix.size, 17 + 4 * matrix.version)
        let longer = try LibQRencode.load().encode("LS1-" + String(repeating: "ABCD-", count: 20))
        XCTAssertEqual(longer.size, 17 + 4 * longer.version)
        XCTAssertGreaterThan(longer.version, matrix.version)
    }

    func testFinderPatternsSitInThreeCornersAndTheTimingPatternsBetweenThem() throws {
        let matrix = try LibQRencode.load().encode(Self.code)
        let last = matrix.size - 7
        for (row, column) in [(0, 0), (0, last), (last, 0)] {
            XCTAssertTrue(Self.isFinderPattern(matrix, row: row, column: column), "no finder pattern at \(row), \(column)")
        }
        XCTAssertFalse(Self.isFinderPattern(matrix, row: last, column: last), "a finder pattern in the fourth corner")
        for index in 8..<(matrix.size - 8) {
            XCTAssertEqual(matrix[6, index], index.isMultiple(of: 2), "row 6, column \(index)")
            XCTAssertEqual(matrix[index, 6], index.isMultiple(of: 2), "column 6, row \(index)")
        }
    }

    func testTheHalfBlocksDrawEveryModuleWithTheQuietZone() throws {
        let matrix = try LibQRencode.load().encode(Self.code)
        for colours in [false, true] {
            let lines = QRRendering.halfBlocks(matrix, colours: colours)
            let side = matrix.size + 2 * QRRendering.quietZone
            XCTAssertEqual(lines.count, (side + 1) / 2)
            let drawn = lines.map { Self.withoutColours($0) }
            XCTAssertEqual(Set(drawn.map(\.count)), [side])
            if colours {
                XCTAssertTrue(lines.allSatisfy { $0.hasPrefix("\u{1B}[30;107m") && $0.hasSuffix("\u{1B}[0m") })
            }
            // Read the drawing back, two rows per line, and compare with the matrix and its border.
            for (index, line) in drawn.enumerated() {
                for (offset, character) in line.enumerated() {
                    let row = 2 * index - QRRendering.quietZone, column = offset - QRRendering.quietZone
                    let (upper, lower) = try XCTUnwrap(Self.halves[character], "unexpected \(character)")
                    XCTAssertEqual(upper, matrix[row, column], "row \(row), column \(column)")
                    XCTAssertEqual(lower, matrix[row + 1, column], "row \(row + 1), column \(column)")
                }
            }
        }
    }

    func testTheASCIIDrawingHasOneLinePerRow() throws {
        let matrix = try LibQRencode.load().encode(Self.code)
        let lines = QRRendering.ascii(matrix)
        let side = matrix.size + 2 * QRRendering.quietZone
        XCTAssertEqual(lines.count, side)
        for (index, line) in lines.enumerated() {
            let modules = stride(from: 0, to: line.count, by: 2).map { Array(line)[$0] == "#" }
            XCTAssertEqual(modules, (0..<side).map { matrix[index - QRRendering.quietZone, $0 - QRRendering.quietZone] })
        }
    }

    func testAMissingLibraryNamesThePackageToInstall() {
        XCTAssertThrowsError(try LibQRencode.load(soname: "libqrencode-absent.so.4")) { error in
            let message = (error as? LibraryUnavailable)?.description ?? ""
            XCTAssertTrue(message.hasPrefix("cannot load libqrencode-absent.so.4: "), message)
            XCTAssertTrue(message.contains("sudo apt install libqrencode4"), message)
        }
        // A library that is not libqrencode: refused when its functions are looked up.
        XCTAssertThrowsError(try LibQRencode.load(soname: "libc.so.6")) { error in
            XCTAssertTrue("\(error)".contains("has no function QRcode_encodeString"), "\(error)")
        }
    }

    func testTextWithANulIsRefused() throws {
        XCTAssertThrowsError(try LibQRencode.load().encode("LS1\u{0}X"))
    }

    // MARK: Helpers

    static let halves: [Character: (Bool, Bool)] = ["█": (true, true), "▀": (true, false), "▄": (false, true), " ": (false, false)]

    static func withoutColours(_ line: String) -> String {
        var text = line
        for escape in ["\u{1B}[30;107m", "\u{1B}[0m"] {
            text = text.split(separator: escape, omittingEmptySubsequences: false).joined()
        }
        return text
    }

    /// 7 × 7: a dark ring, a light ring, a dark 3 × 3 centre, and a light separator outside it.
    static func isFinderPattern(_ matrix: QRMatrix, row: Int, column: Int) -> Bool {
        for dy in -1...7 {
            for dx in -1...7 {
                let ring = max(abs(dy - 3), abs(dx - 3))
                let dark = ring == 3 || ring <= 1
                let expected = ring == 4 ? false : dark
                if (0..<matrix.size).contains(row + dy), (0..<matrix.size).contains(column + dx),
                   matrix[row + dy, column + dx] != expected { return false }
            }
        }
        return true
    }
}
