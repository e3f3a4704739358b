import Persistible

/// The article's example type, unchanged.
struct Person: Codable, Hashable, Persistible {
    let name: String
    let age: Int
    let school: String

    static var fileName: String {
        return "person_data"
    }
}
