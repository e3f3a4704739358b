// Foundation alone, as the benchmark's cold references: with a file, `JSONDecoder` reads every record of it; without
// one, it decodes one small value, the floor of any Swift program that imports Foundation and reads JSON.
import Foundation

struct Person: Codable {
    var id: Int
    var name: String
    var age: Int
    var school: String
}

do {
    if CommandLine.arguments.count == 2 {
        let data = try Data(contentsOf: URL(fileURLWithPath: CommandLine.arguments[1]))
        print(try JSONDecoder().decode([Person].self, from: data).count)
    } else {
        let data = Data(#"{"id":1,"name":"Person 1","age":19,"school":"KNUST"}"#.utf8)
        print(try JSONDecoder().decode(Person.self, from: data).name)
    }
} catch {
    print("\(error)")
    exit(1)
}
