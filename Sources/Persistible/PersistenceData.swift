/// What a file holds, as ``Persistible/load()`` returns it: a single value or an array of values (see
/// <doc:GettingStarted#Load-values>).
public enum PersistenceData<Value> {
    /// The generic parameter's name before it was spelled out.
    @available(*, deprecated, renamed: "Value")
    public typealias T = Value

    /// The file holds one value, written by saving a single value to a file that did not exist.
    case single(Value)

    /// The file holds an array, in the order the values were first saved.
    case array([Value])

    /// The values the file holds, in order: one for ``single(_:)``, all of them for ``array(_:)``.
    public var values: [Value] {
        switch self {
        case .single(let value): return [value]
        case .array(let values): return values
        }
    }
}

extension PersistenceData: Equatable where Value: Equatable {}

extension PersistenceData: Hashable where Value: Hashable {}

extension PersistenceData: Sendable where Value: Sendable {}
