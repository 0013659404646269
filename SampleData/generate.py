#!/usr/bin/env python3
"""Regenerates Folio's sample data, deterministically (the same bytes every run).

    python3 SampleData/generate.py            # rewrites SampleData/*.jsonl
    python3 SampleData/generate.py --check    # exits 1 if the committed files differ from what it generates

Python standard library only. See SampleData/README.md for the formats.
"""
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 20261129

COOKBOOKS = [
    "Weeknight Suppers", "The Bread Drawer", "Small Plates", "Winter Kitchen", "Summer Table",
    "Sunday Baking", "Café at Home", "The Spice Road", "Green Market", "Old Family Favourites",
    "Quick and Bright", "The Cocktail Hour",
]

DISH_FLAVOURS = ["Lemon", "Garlic", "Smoky", "Herbed", "Spiced", "Golden", "Miso", "Chilli", "Saffron", "Ginger",
                 "Roasted", "Charred", "Creamy", "Citrus", "Honey", "Tamarind", "Sesame", "Pepper", "Fennel", "Sumac"]
DISHES = ["Chicken", "Lentil Soup", "Risotto", "Noodles", "Salmon", "Chickpea Stew", "Tofu", "Dal", "Pilaf",
          "Gnocchi", "Tacos", "Frittata", "Ramen", "Couscous", "Aubergine", "Mushroom Ragù", "Prawns", "Polenta",
          "Bean Chili", "Pork Chops"]
BAKE_FLAVOURS = ["Lemon Drizzle", "Chocolate", "Cardamom", "Almond", "Blueberry", "Apple", "Walnut", "Pistachio",
                 "Rhubarb", "Banana", "Hazelnut", "Orange", "Cinnamon", "Raspberry", "Pear", "Maple"]
BAKES = ["Cake", "Loaf", "Muffins", "Tart", "Buns", "Cookies", "Scones", "Brioche", "Galette", "Financiers",
         "Shortbread", "Focaccia"]
DRINK_BASES = ["Iced Latte", "Chai", "Lemonade", "Spritz", "Cold Brew", "Hot Chocolate", "Matcha", "Negroni",
               "Mule", "Smoothie", "Shrub", "Tonic"]
DRINK_FLAVOURS = ["Vanilla", "Ginger", "Elderflower", "Blood Orange", "Mint", "Hibiscus", "Coconut", "Cherry",
                  "Grapefruit", "Lavender", "Peach", "Yuzu"]

SAVOURY_INGREDIENTS = [("olive oil", "milliliter", 15, 60), ("onion", "piece", 1, 3), ("garlic", "piece", 1, 6),
                       ("salt", "gram", 2, 10), ("chicken thighs", "gram", 300, 900), ("lentils", "gram", 150, 400),
                       ("rice", "gram", 150, 400), ("stock", "milliliter", 250, 1200), ("tomatoes", "gram", 200, 800),
                       ("lemon", "piece", 1, 2), ("ginger", "gram", 10, 40), ("coriander", "gram", 5, 30),
                       ("butter", "gram", 20, 80), ("chickpeas", "gram", 200, 480), ("spinach", "gram", 100, 300),
                       ("mushrooms", "gram", 150, 500), ("parmesan", "gram", 20, 80), ("noodles", "gram", 150, 400),
                       ("soy sauce", "milliliter", 15, 60), ("chilli", "piece", 1, 3)]
BAKING_INGREDIENTS = [("flour", "gram", 150, 600), ("sugar", "gram", 50, 300), ("butter", "gram", 50, 250),
                      ("eggs", "piece", 1, 4), ("milk", "milliliter", 50, 300), ("baking powder", "gram", 4, 12),
                      ("salt", "gram", 1, 5), ("yeast", "gram", 5, 14), ("ground almonds", "gram", 50, 200),
                      ("vanilla extract", "milliliter", 2, 10), ("cocoa", "gram", 20, 80), ("honey", "gram", 20, 100)]
DRINK_INGREDIENTS = [("water", "milliliter", 100, 300), ("milk", "milliliter", 100, 300), ("ice", "piece", 3, 8),
                     ("espresso", "milliliter", 30, 60), ("syrup", "milliliter", 10, 30), ("soda water", "milliliter", 50, 200),
                     ("lime", "piece", 1, 2), ("gin", "milliliter", 25, 50), ("vermouth", "milliliter", 15, 30),
                     ("tea", "gram", 2, 6), ("fruit", "gram", 50, 200)]

DESTINATIONS = [
    ("Rome", 41.9028, 12.4964), ("Paris", 48.8566, 2.3522), ("Tokyo", 35.6762, 139.6503), ("Lima", -12.0464, -77.0428),
    ("Oslo", 59.9139, 10.7522), ("New York", 40.7128, -74.0060), ("Cape Town", -33.9249, 18.4241),
    ("Kyoto", 35.0116, 135.7681), ("Lisbon", 38.7223, -9.1393), ("Reykjavík", 64.1466, -21.9426),
    ("Mexico City", 19.4326, -99.1332), ("Hanoi", 21.0278, 105.8342), ("Marrakesh", 31.6295, -7.9811),
    ("Sydney", -33.8688, 151.2093), ("Buenos Aires", -34.6037, -58.3816), ("Istanbul", 41.0082, 28.9784),
    ("Edinburgh", 55.9533, -3.1883), ("Vancouver", 49.2827, -123.1207), ("Seoul", 37.5665, 126.9780),
    ("Copenhagen", 55.6761, 12.5683),
]
TRIP_KINDS = ["Weekend in", "Food tour of", "Spring break in", "Conference in", "Family visit to", "Hiking near",
              "Long weekend in", "Winter escape to", "Museum week in", "Honeymoon in", "Workation in", "Festival in"]
NOTES = ["Book the museum pass early", "Window seat", "Bring the good camera", "Check visa rules",
         "Restaurant booked for the first night", "Travel insurance bought", "Pack an umbrella",
         "Ask about the airport transfer", "Vegetarian options noted", "Meet Ana on day two"]


def iso(seconds):
    """Folio's stored date form: 2026-03-01T09:30:00Z (UTC, no fraction for whole seconds)."""
    import datetime
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def line(obj):
    return json.dumps(obj, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n"


def ingredients(rng, pool, count):
    chosen = rng.sample(pool, count)
    result = []
    for name, unit, low, high in chosen:
        amount = rng.randint(low, high) if unit == "piece" else round(rng.uniform(low, high) / 5) * 5
        result.append({"name": name, "amount": float(max(amount, 1)), "unit": unit})
    return result


def generate():
    rng = random.Random(SEED)
    cookbooks = [{"key": "cb%02d" % (i + 1), "title": title} for i, title in enumerate(COOKBOOKS)]

    recipes = []
    names = set()
    base_time = 1704067200  # 2024-01-01

    def unique(name):
        if name in names:
            return None
        names.add(name)
        return name

    # 150 plain recipes, 100 baked goods, 60 beverages.
    while len([r for r in recipes if r["kind"] == "Recipe"]) < 150:
        name = unique("%s %s" % (rng.choice(DISH_FLAVOURS), rng.choice(DISHES)))
        if not name:
            continue
        recipes.append({"kind": "Recipe", "name": name, "summary": "A %s dish for %s." % (
            rng.choice(["quick", "slow-cooked", "one-pot", "bright", "comforting", "weeknight"]),
            rng.choice(["two", "a crowd", "the freezer", "a lazy Sunday", "busy evenings"])),
            "servings": rng.choice([1, 2, 2, 4, 4, 4, 6, 8]),
            "createdAt": iso(base_time + rng.randint(0, 86400 * 700)),
            "cookbook": rng.choice([c["key"] for c in cookbooks[:5] + cookbooks[7:10]] + [None]),
            "ingredients": ingredients(rng, SAVOURY_INGREDIENTS, rng.randint(4, 8))})
    while len([r for r in recipes if r["kind"] == "BakedGood"]) < 100:
        name = unique("%s %s" % (rng.choice(BAKE_FLAVOURS), rng.choice(BAKES)))
        if not name:
            continue
        recipes.append({"kind": "BakedGood", "name": name, "summary": rng.choice([None, "Keeps for three days.", "Best warm.", "Freezes well."]),
                        "servings": rng.choice([6, 8, 10, 12, 16]),
                        "createdAt": iso(base_time + rng.randint(0, 86400 * 700)),
                        "cookbook": rng.choice(["cb02", "cb06", "cb10", None]),
                        "ovenTemperature": rng.choice([160, 170, 180, 180, 190, 200, 220]),
                        "glutenFree": rng.random() < 0.2,
                        "ingredients": ingredients(rng, BAKING_INGREDIENTS, rng.randint(4, 7))})
    while len([r for r in recipes if r["kind"] == "Beverage"]) < 60:
        base = rng.choice(DRINK_BASES)
        name = unique("%s %s" % (rng.choice(DRINK_FLAVOURS), base))
        if not name:
            continue
        caffeinated = base in ("Iced Latte", "Chai", "Cold Brew", "Matcha", "Hot Chocolate")
        alcoholic = base in ("Spritz", "Negroni", "Mule")
        recipes.append({"kind": "Beverage", "name": name, "summary": None,
                        "servings": rng.choice([1, 1, 2, 4]),
                        "createdAt": iso(base_time + rng.randint(0, 86400 * 700)),
                        "cookbook": rng.choice(["cb07", "cb12", None]),
                        "caffeine": float(rng.choice([40, 63, 80, 95, 120])) if caffeinated else 0.0,
                        "isAlcoholic": alcoholic,
                        "ingredients": ingredients(rng, DRINK_INGREDIENTS, rng.randint(2, 5))})
    recipes.sort(key=lambda r: r["createdAt"])
    for recipe in recipes:
        if recipe.get("summary") is None:
            recipe.pop("summary", None)

    trips = []
    trip_base = 1735689600  # 2025-01-01
    for index in range(3000):
        city, lat, lon = DESTINATIONS[rng.randrange(len(DESTINATIONS))]
        start = trip_base + rng.randint(0, 86400 * 730)
        start -= start % 3600
        nights = rng.choice([1, 2, 2, 3, 3, 4, 5, 7, 7, 10, 14])
        price = round(rng.uniform(80, 260) * nights + rng.uniform(90, 1400), 2)
        trip = {"name": "%s %s" % (rng.choice(TRIP_KINDS), city), "destination": city, "startDate": iso(start),
                "price": price, "nights": nights}
        if rng.random() < 0.25:
            trip["notes"] = rng.choice(NOTES)
        if rng.random() < 0.8:
            # An opaque map item identifier, in the shape MapKit's MKMapItem.Identifier gives.
            trip["mapItem"] = "I%08X%04X" % (rng.getrandbits(32), rng.getrandbits(16))
        trips.append(trip)

    return {
        "cookbooks.jsonl": "".join(line(c) for c in cookbooks),
        "recipes.jsonl": "".join(line(r) for r in recipes),
        "trips.jsonl": "".join(line(t) for t in trips),
    }


def main():
    files = generate()
    if "--check" in sys.argv:
        stale = [name for name, text in files.items()
                 if not os.path.exists(os.path.join(HERE, name))
                 or open(os.path.join(HERE, name), encoding="utf-8").read() != text]
        if stale:
            print("out of date: " + ", ".join(stale) + " (run python3 SampleData/generate.py)")
            sys.exit(1)
        print("SampleData is up to date")
        return
    for name, text in files.items():
        with open(os.path.join(HERE, name), "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        print("wrote SampleData/%s (%d lines, %d bytes)" % (name, text.count("\n"), len(text.encode("utf-8"))))


if __name__ == "__main__":
    main()
