// The floor of a Swift program that reads JSON with the smallest Foundation: it decodes one small value.
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

struct Person: Codable {
    var id: Int
    var name: String
    var age: Int
    var school: String
}

do {
    let data = Data(#"{"id":1,"name":"Person 1","age":19,"school":"KNUST"}"#.utf8)
    print(try JSONDecoder().decode(Person.self, from: data).name)
} catch {
    print("\(error)")
    exit(1)
}
