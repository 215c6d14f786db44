import FocusIslandClient
import Foundation
import Testing

@testable import focus

/// `focus shop` shows a running sale beside the price now, and a seasonal item's end.
@Suite struct ShopOutputTests {
    private func item(price: Int, regular: Int? = nil, saleEnds: String? = nil, until: String? = nil) -> Item {
        Item(
            id: UUID(), kind: .furniture, name: "Telescope", description: "Stars.", price: price, image: "furniture/telescope.png",
            sortOrder: 90, regularPrice: regular, saleEndsAt: saleEnds.map(Time.init(rawValue:)),
            availableUntil: until.map(Time.init(rawValue:)))
    }

    @Test func aSaleShowsTheRegularPriceAndItsEnd() {
        #expect(
            ShopCommands.offerNote(item(price: 300, regular: 420, saleEnds: "2026-12-31T23:59:00.000000Z"))
                == " [sale: 420 coins after 2026-12-31 23:59 UTC]")
    }

    @Test func aSeasonalItemShowsItsEndAndAnOrdinaryOneNothing() {
        #expect(
            ShopCommands.offerNote(
                item(price: 300, regular: 420, saleEnds: "2026-12-31T00:00:00.000000Z", until: "2027-01-07T00:00:00.000000Z"))
                == " [sale: 420 coins after 2026-12-31 00:00 UTC; in the shop until 2027-01-07 00:00 UTC]")
        #expect(ShopCommands.offerNote(item(price: 420, regular: 420)) == "")
    }
}
