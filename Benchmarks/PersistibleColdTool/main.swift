// A command-line tool as a user would write one on the package, which the benchmark starts once per call: it
// imports only the package and the smallest Foundation the platform has, and reads its file cold every time.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Persistible

/// The benchmark's record, four fields, in `PERSISTIBLE_DIRECTORY`'s `Person.json`.
struct Person: Codable, Hashable, Identifiable, Persistible {
    var id: Int
    var name: String
    var age: Int
    var school: String
}

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch (arguments.first, arguments.count == 2 ? Int(arguments[1]) : nil) {
    case ("add", let id?):
        try Person(id: id, name: "Person \(id)", age: 18 + id % 50, school: "KNUST").saveToFile()
    case ("edit", let id?):
        try Person(id: id, name: "Edited \(id)", age: 18 + id % 50, school: "KNUST").saveToFile()
    case ("count", nil) where arguments.count == 1:
        print(try Person.loadListFromFile().count)
    case ("lookup", let id?):
        print(try Person.loadFromFile(id: id)?.name ?? "none")
    default:
        print("usage: PersistibleColdTool add ID | edit ID | count | lookup ID")
        exit(2)
    }
} catch {
    print("\(error)")
    exit(1)
}
