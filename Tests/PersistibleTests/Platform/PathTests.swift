import Foundation
import Testing

@testable import Persistible

/// The package's path strings read as `NSString`'s path methods read them, which the smallest Foundation lacks.
@Suite struct PathTests {
    static let paths = [
        "/a/b", "/a/b/", "/a//b", "/a", "/", "", "a/b", "a/b/", "/a/b/c.json", "/.hidden", "//a", "/a/./b",
        "/a/../b", "café/ñ", "/tmp/persistible-test.X/records.json",
    ]

    @Test(arguments: paths)
    func aPathsDirectoryAndNameAreFoundationsOwn(_ path: String) {
        #expect(Path.directory(of: path) == (path as NSString).deletingLastPathComponent)
        #expect(Path.name(of: path) == (path as NSString).lastPathComponent)
    }

    /// Foundation on Linux traps on a path of one relative component.
    @Test func aPathOfOneRelativeComponentIsItsName() {
        #expect(Path.directory(of: "a") == "")
        #expect(Path.name(of: "a") == "a")
    }

    @Test(arguments: ["/a", "/a/", "a", "", "/"])
    func aNameAppendsAsFoundationAppendsIt(_ directory: String) {
        #expect(Path.appending("b.json", to: directory) == (directory as NSString).appendingPathComponent("b.json"))
    }
}
