// Every schema of docs/openapi.json has its model in the client, named as the schema, in the
// document's order (the generator makes one per schema; scripts/lint checks they are current).
import FocusIslandClient
import Foundation
import Testing

@Suite struct SchemaModelTests {
    @Test func everySchemaHasItsModel() throws {
        let url = JourneyServer.repositoryRoot.appendingPathComponent("docs/openapi.json")
        let document = try JSONDecoder().decode(JSONValue.self, from: Data(contentsOf: url))
        guard case .object(let schemas) = document["components"]?["schemas"] else {
            Issue.record("no components.schemas in docs/openapi.json")
            return
        }
        let models = Schemas.all
        #expect(Set(models.map(\.name)) == Set(schemas.keys))
        #expect(models.count == schemas.count)
        for model in models {
            #expect(String(describing: model.type) == model.name, "the model of \(model.name)")
        }
    }
}
