// The words of a query that name a POI category ("cafe Zürich", "pharmacie", "аптека"): the classes of the
// OpenMapTiles `poi` layer by their own names, and the everyday words for the commonest of them in the languages
// of Europe's data (French, German, Spanish, Italian, Portuguese, Dutch, Polish, Russian, Ukrainian). A category word
// looks for the labels of that class (nearest the point under proximity) besides the names holding the word.
// Words are compared normalised (text.ts: lower case, no diacritics), as the query's tokens are.

/** POI classes of the OpenMapTiles `poi` layer recognised as a category word in a query. */
export const POI_CATEGORIES: ReadonlySet<string> = new Set([
  'restaurant', 'cafe', 'bar', 'pub', 'fast_food', 'hotel', 'hostel', 'school', 'college', 'university', 'hospital',
  'clinic', 'doctors', 'dentist', 'pharmacy', 'bank', 'atm', 'fuel', 'parking', 'supermarket', 'shop', 'bakery',
  'museum', 'library', 'theatre', 'cinema', 'police', 'post', 'post_office', 'town_hall', 'place_of_worship', 'church',
  'mosque', 'synagogue', 'temple', 'park', 'playground', 'zoo', 'attraction', 'viewpoint', 'station', 'railway',
  'bus', 'bus_stop', 'airport', 'aerodrome', 'ferry_terminal', 'marketplace', 'grocery', 'clothes', 'books', 'toilets',
  'ice_cream', 'beer', 'lodging', 'campsite', 'swimming_pool', 'stadium', 'sports_centre', 'car', 'bicycle', 'fire_station',
]);

/** Everyday words (normalised) for a class, in other languages: the class they name. */
const WORDS: Readonly<Record<string, readonly string[]>> = {
  cafe: ['cafeteria', 'kaffee', 'koffiehuis', 'kawiarnia', 'кафе', 'кавярня'],
  pharmacy: ['pharmacie', 'apotheke', 'farmacia', 'apotheek', 'apteka', 'аптека'],
  school: ['ecole', 'schule', 'escuela', 'scuola', 'escola', 'szkola', 'школа'],
  hotel: ['albergo', 'отель', 'гостиница', 'готель'],
  fuel: ['carburant', 'tankstelle', 'gasolinera', 'benzinaio', 'tankstation', 'азс', 'заправка'],
  bank: ['banque', 'banco', 'banca', 'банк'],
  restaurant: ['ristorante', 'restaurante', 'restauracja', 'ресторан'],
  bakery: ['boulangerie', 'backerei', 'panaderia', 'panetteria', 'padaria', 'bakkerij', 'piekarnia', 'пекарня'],
  supermarket: ['supermarche', 'supermarkt', 'supermercado', 'supermercato', 'супермаркет'],
  hospital: ['hopital', 'krankenhaus', 'ospedale', 'ziekenhuis', 'szpital', 'больница', 'лікарня'],
  post: ['poste', 'postamt', 'correos', 'poczta', 'почта', 'пошта'],
  police: ['polizei', 'policia', 'polizia', 'politie', 'policja', 'полиция', 'поліція'],
  museum: ['musee', 'museo', 'muzeum', 'музей'],
  library: ['bibliotheque', 'bibliothek', 'biblioteca', 'bibliotheek', 'biblioteka', 'библиотека', 'бібліотека'],
  church: ['eglise', 'kirche', 'iglesia', 'chiesa', 'igreja', 'kerk', 'kosciol', 'церковь', 'церква'],
  parking: ['stationnement', 'parkplatz', 'aparcamiento', 'parcheggio', 'estacionamento', 'parkeerplaats', 'парковка'],
  town_hall: ['mairie', 'rathaus', 'ayuntamiento', 'municipio', 'gemeentehuis', 'ratusz', 'мэрия'],
};

const BY_WORD: ReadonlyMap<string, string> = new Map(Object.entries(WORDS).flatMap(([cls, words]) => words.map((w): [string, string] => [w, cls])));

/** The category a query token names (normalised), or undefined. */
export function categoryOf(token: string): string | undefined {
  return POI_CATEGORIES.has(token) ? token : BY_WORD.get(token);
}
