import Foundation
import Testing
@testable import Folio

/// Relationships, inverses and unique values of models that two clones changed, merged by real `git`
/// through `folio merge-driver`.
@MainActor
@Suite("git merge of related and unique models", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/git")))
struct GitMergeRelationshipsTests {
    static let models: [any PersistentModel.Type] = [Recipe.self, BakedGood.self, Beverage.self, Ingredient.self, Cookbook.self]

    static func container(_ clone: URL) throws -> ModelContainer {
        try ModelContainer(for: Schema(models), configurations: ModelConfiguration(url: clone.appendingPathComponent("Recipes.folio")))
    }

    static func folio(_ arguments: String...) throws -> (status: Int32, output: String) {
        try GitLiveStoreTests.run(try #require(builtExecutableURL("folio"), "folio is built next to the tests"), arguments)
    }

    @Test func recipesBothClonesAddedDeletedAndInsertedTwiceMergeIntoOneConsistentStore() throws {
        let (scratch, origin, a) = try GitLiveStoreTests.remote("git-relationships", store: "Recipes.folio")
        defer { try? FileManager.default.removeItem(at: scratch) }

        // The base: one cookbook with two recipes.
        try Self.pushCookbook(from: a, compacted: false)

        // Clone b adds Pie to the cookbook and a Tart of its own, and pushes.
        let b = try GitLiveStoreTests.clone(origin, "b", in: scratch)
        do {
            let context = ModelContext(try Self.container(b))
            let suppers = try #require(try context.fetch(FetchDescriptor<Cookbook>()).first)
            let pie = Recipe(name: "Pie")
            context.insert(pie)
            suppers.recipes.append(pie)
            let tart = Recipe(name: "Tart")
            tart.servings = 6
            context.insert(tart)
            try context.save()
        }
        try GitLiveStoreTests.git("commit", "-q", "-am", "b", in: b)
        try GitLiveStoreTests.git("push", "-q", "origin", "main:b", in: b)

        // Clone a, later, adds Cake, deletes Stew and inserts a Tart too; then merges b's work.
        do {
            let context = ModelContext(try Self.container(a))
            let suppers = try #require(try context.fetch(FetchDescriptor<Cookbook>()).first)
            let cake = Recipe(name: "Cake")
            context.insert(cake)
            suppers.recipes.append(cake)
            let stew = try #require(try context.fetch(FetchDescriptor<Recipe>(predicate: #Predicate { $0.name == "Stew" })).first)
            context.delete(stew)
            let tart = Recipe(name: "Tart")
            tart.servings = 4
            context.insert(tart)
            try context.save()
        }
        try GitLiveStoreTests.git("commit", "-q", "-am", "a", in: a)
        try GitLiveStoreTests.git("fetch", "-q", "origin", in: a)
        try GitLiveStoreTests.git("merge", "--no-edit", "origin/b", in: a)

        let (store, context) = try Self.expectSuppersListsSoupPieAndCake(in: a)
        let tarts = try context.fetch(FetchDescriptor<Recipe>(predicate: #Predicate { $0.name == "Tart" }))
        #expect(tarts.map(\.servings) == [4], "one Tart, with the values of the later insert")
        #expect(try context.fetchCount(FetchDescriptor<Recipe>()) == 4)

        let conflicts = try Self.folio("conflicts", store)
        #expect(conflicts.output.contains("#unique"), "the Tart that became the other is listed: \(conflicts.output)")
        #expect(conflicts.output.contains("servings"), "\(conflicts.output)")
        #expect(!conflicts.output.contains("recipes"), "the cookbook's list merged as a set: \(conflicts.output)")
    }

    /// Checks the merged store in clone `a`: it verifies with every inverse agreeing, and Suppers lists
    /// Soup, Pie and Cake, each referring back. Returns the store's path and a context on it.
    static func expectSuppersListsSoupPieAndCake(in a: URL) throws -> (store: String, context: ModelContext) {
        let store = a.appendingPathComponent("Recipes.folio").path
        let verify = try Self.folio("verify", store)
        #expect(verify.status == 0, "\(verify.output)")
        #expect(!verify.output.contains("does not refer back"), "every inverse agrees: \(verify.output)")
        let context = ModelContext(try Self.container(a))
        let suppers = try #require(try context.fetch(FetchDescriptor<Cookbook>()).first)
        #expect(Set(suppers.recipes.map(\.name)) == ["Soup", "Pie", "Cake"])
        for recipe in suppers.recipes { #expect(recipe.cookbook?.title == "Suppers") }
        return (store, context)
    }

    /// Commits clone `b`'s changes and pushes them as branch `b`, then commits `a`'s and merges `b` into it.
    static func commitAndMerge(_ b: URL, into a: URL) throws {
        // New files too: a first compaction writes the snapshots and the history.
        try GitLiveStoreTests.git("add", "-A", in: b)
        try GitLiveStoreTests.git("commit", "-q", "-m", "b", in: b)
        try GitLiveStoreTests.git("push", "-q", "origin", "main:b", in: b)
        try GitLiveStoreTests.git("add", "-A", in: a)
        try GitLiveStoreTests.git("commit", "-q", "-m", "a", in: a)
        try GitLiveStoreTests.git("fetch", "-q", "origin", in: a)
        try GitLiveStoreTests.git("merge", "--no-edit", "origin/b", in: a)
    }

    /// A remote in a new scratch directory (named after `name`) whose base is the compacted cookbook of
    /// ``pushCookbook(from:compacted:)``, and two clones of it.
    static func clonesOfACompactedCookbook(_ name: String) throws -> (scratch: URL, a: URL, b: URL) {
        let (scratch, origin, a) = try GitLiveStoreTests.remote(name, store: "Recipes.folio")
        try Self.pushCookbook(from: a)
        return (scratch, a, try GitLiveStoreTests.clone(origin, "b", in: scratch))
    }

    /// Makes `change` in clone `clone`'s store, saves it and compacts the store.
    static func saveAndCompact(_ clone: URL, _ change: (ModelContext) throws -> Void) throws {
        let container = try Self.container(clone)
        let context = ModelContext(container)
        try change(context)
        try context.save()
        try container.compact()
    }

    /// The base of the merges: the cookbook Suppers with Soup and Stew, compacted when `compacted`,
    /// committed and pushed from clone `a`.
    static func pushCookbook(from a: URL, compacted: Bool = true) throws {
        let container = try Self.container(a)
        let context = ModelContext(container)
        let suppers = Cookbook(title: "Suppers")
        context.insert(suppers)
        for name in ["Soup", "Stew"] {
            let recipe = Recipe(name: name)
            context.insert(recipe)
            suppers.recipes.append(recipe)
        }
        try context.save()
        if compacted { try container.compact() }
        try GitLiveStoreTests.git("add", "-A", in: a)
        try GitLiveStoreTests.git("commit", "-q", "-m", "base", in: a)
        try GitLiveStoreTests.git("push", "-q", "origin", "main", in: a)
    }

    /// Clone b adds Pie to the cookbook (and renames Stew, when asked), clone a adds Cake and deletes
    /// Stew; each saves and compacts.
    static func addPieOnBAndCakeOnA(a: URL, b: URL, renamingStewOnB newName: String? = nil) throws {
        for (clone, name) in [(b, "Pie"), (a, "Cake")] {
            try saveAndCompact(clone) { context in
                let suppers = try #require(try context.fetch(FetchDescriptor<Cookbook>()).first)
                let recipe = Recipe(name: name)
                context.insert(recipe)
                suppers.recipes.append(recipe)
                let stew = try #require(try context.fetch(FetchDescriptor<Recipe>(predicate: #Predicate { $0.name == "Stew" })).first)
                if clone == a { context.delete(stew) } else if let newName { stew.name = newName }
            }
        }
    }

    @Test func aCookbookBothCompactedClonesAddedRecipesToListsThemAll() throws {
        let (scratch, a, b) = try Self.clonesOfACompactedCookbook("git-compacted-relationships")
        defer { try? FileManager.default.removeItem(at: scratch) }

        // Each clone adds a recipe to the cookbook and compacts; a also deletes Stew.
        try Self.addPieOnBAndCakeOnA(a: a, b: b)
        try Self.commitAndMerge(b, into: a)

        let (store, _) = try Self.expectSuppersListsSoupPieAndCake(in: a)
        let conflicts = try Self.folio("conflicts", store)
        #expect(!conflicts.output.contains("recipes"), "the cookbook's list merged as a set: \(conflicts.output)")
    }

    @Test func clonesThatBothCompactedACookbookTheBaseHadOnlyInItsJournalMergeIt() throws {
        let (scratch, origin, a) = try GitLiveStoreTests.remote("git-compacted-base-journal", store: "Recipes.folio")
        defer { try? FileManager.default.removeItem(at: scratch) }
        try Self.pushCookbook(from: a, compacted: false)
        let b = try GitLiveStoreTests.clone(origin, "b", in: scratch)

        // Both clones change what the base's journal inserted, then compact: b renames Stew and adds
        // Pie; a deletes Stew and adds Cake.
        try Self.addPieOnBAndCakeOnA(a: a, b: b, renamingStewOnB: "Stew (b)")
        try Self.commitAndMerge(b, into: a)

        let (store, context) = try Self.expectSuppersListsSoupPieAndCake(in: a)
        #expect(
            try context.fetch(FetchDescriptor<Recipe>()).map(\.name).sorted() == ["Cake", "Pie", "Soup"],
            "the recipe one clone deleted does not come back with the other's rename")
        let conflicts = try Self.folio("conflicts", store)
        #expect(conflicts.output.contains("Stew (b)"), "the lost rename is listed: \(conflicts.output)")
    }

    @Test func aRecipeOneCompactedCloneDeletedAndTheOtherMovedToANewCookbookIsDroppedFromItsList() throws {
        let (scratch, a, b) = try Self.clonesOfACompactedCookbook("git-compacted-dangling")
        defer { try? FileManager.default.removeItem(at: scratch) }
        try Self.saveAndCompact(b) { context in
            let stew = try #require(try context.fetch(FetchDescriptor<Recipe>(predicate: #Predicate { $0.name == "Stew" })).first)
            let winter = Cookbook(title: "Winter")
            context.insert(winter)
            winter.recipes.append(stew)
        }
        try Self.saveAndCompact(a) { context in
            let stew = try #require(try context.fetch(FetchDescriptor<Recipe>(predicate: #Predicate { $0.name == "Stew" })).first)
            context.delete(stew)
        }
        try Self.commitAndMerge(b, into: a)

        // The new cookbook's reference to the deleted recipe is in another snapshot file than the
        // deletion, beyond one file's merge. `folio verify` (read-only) sees it mended in memory...
        let store = a.appendingPathComponent("Recipes.folio").path
        let before = try Self.folio("verify", store)
        #expect(before.status == 0 && before.output.contains("mended in memory"), "\(before.output)")
        #expect(!before.output.contains("danglingReference"), "\(before.output)")

        // ... and the app's open commits the mend, listed with the move the deletion undid.
        let context = ModelContext(try Self.container(a))
        let books = try context.fetch(FetchDescriptor<Cookbook>(sortBy: [SortDescriptor(\.title)]))
        #expect(books.map(\.title) == ["Suppers", "Winter"])
        #expect(books.map { $0.recipes.map(\.name) } == [["Soup"], []])
        #expect(try context.fetch(FetchDescriptor<Recipe>()).map(\.name) == ["Soup"])
        let conflicts = try Self.folio("conflicts", store)
        #expect(conflicts.output.contains("cookbook: kept (record deleted)"), "\(conflicts.output)")
        #expect(conflicts.output.contains("recipes"), "the dropped reference is listed: \(conflicts.output)")
        let verify = try Self.folio("verify", store)
        #expect(verify.status == 0 && !verify.output.contains("mended") && !verify.output.contains("does not refer back"), "\(verify.output)")
        let manifest = try String(contentsOfFile: store + "/manifest.json", encoding: .utf8)
        #expect(!manifest.contains("reconcile"), "\(manifest)")
    }

    @Test func aRecipeBothCompactedClonesMovedToNewCookbooksIsListedByOneOfThem() throws {
        let (scratch, a, b) = try Self.clonesOfACompactedCookbook("git-compacted-moved")
        defer { try? FileManager.default.removeItem(at: scratch) }
        for (clone, title) in [(b, "Winter"), (a, "Spring")] {
            try Self.saveAndCompact(clone) { context in
                let stew = try #require(try context.fetch(FetchDescriptor<Recipe>(predicate: #Predicate { $0.name == "Stew" })).first)
                let book = Cookbook(title: title)
                context.insert(book)
                book.recipes.append(stew)
            }
        }
        try Self.commitAndMerge(b, into: a)

        let store = a.appendingPathComponent("Recipes.folio").path
        let context = ModelContext(try Self.container(a))
        let stew = try #require(try context.fetch(FetchDescriptor<Recipe>(predicate: #Predicate { $0.name == "Stew" })).first)
        let owner = try #require(stew.cookbook?.title)
        #expect(["Winter", "Spring"].contains(owner))
        let books = try context.fetch(FetchDescriptor<Cookbook>(sortBy: [SortDescriptor(\.title)]))
        #expect(books.map(\.title) == ["Spring", "Suppers", "Winter"])
        for book in books {
            #expect(book.recipes.map(\.name).sorted() == (book.title == owner ? ["Stew"] : book.title == "Suppers" ? ["Soup"] : []), "\(book.title)")
        }
        let verify = try Self.folio("verify", store)
        #expect(verify.status == 0 && !verify.output.contains("does not refer back"), "\(verify.output)")
        let conflicts = try Self.folio("conflicts", store)
        #expect(conflicts.output.contains("recipes"), "the list that lost Stew is listed: \(conflicts.output)")
    }

    @Test func aTartBothCompactedClonesInsertedBecomesOneRecord() throws {
        let (scratch, a, b) = try Self.clonesOfACompactedCookbook("git-compacted-unique")
        defer { try? FileManager.default.removeItem(at: scratch) }
        for (clone, servings) in [(b, 6), (a, 4)] {
            try Self.saveAndCompact(clone) { context in
                let suppers = try #require(try context.fetch(FetchDescriptor<Cookbook>()).first)
                let tart = Recipe(name: "Tart")
                tart.servings = servings
                context.insert(tart)
                suppers.recipes.append(tart)
            }
        }
        try Self.commitAndMerge(b, into: a)

        let store = a.appendingPathComponent("Recipes.folio").path
        let context = ModelContext(try Self.container(a))
        let tarts = try context.fetch(FetchDescriptor<Recipe>(predicate: #Predicate { $0.name == "Tart" }))
        #expect(tarts.count == 1)
        let suppers = try #require(try context.fetch(FetchDescriptor<Cookbook>()).first)
        #expect(suppers.recipes.map(\.name).sorted() == ["Soup", "Stew", "Tart"], "the list refers to the Tart that stays")
        let verify = try Self.folio("verify", store)
        #expect(verify.status == 0 && !verify.output.contains("uniqueViolation"), "\(verify.output)")
        let conflicts = try Self.folio("conflicts", store)
        #expect(conflicts.output.contains("#unique") && conflicts.output.contains("servings"), "\(conflicts.output)")
    }
}
