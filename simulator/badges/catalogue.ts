/** The small fixed product catalogue that `GET …/search/product` searches (the badge plugin's product filter items). */

export interface ProductItem {
  id: number;
  name: string;
  sku: string;
  /** Image URL. */
  image: string;
}

const IMAGE_BASE = 'https://shop.example.com/wp-content/uploads/2026/01';

export const PRODUCT_CATALOGUE: readonly ProductItem[] = [
  { id: 101, name: 'Kitenge Shirt', sku: 'KIT-SHIRT-01', image: `${IMAGE_BASE}/kitenge-shirt.jpg` },
  { id: 102, name: 'Kitenge Dress', sku: 'KIT-DRESS-01', image: `${IMAGE_BASE}/kitenge-dress.jpg` },
  { id: 103, name: 'Maasai Shuka Blanket', sku: 'SHUKA-BLK-01', image: `${IMAGE_BASE}/shuka-blanket.jpg` },
  { id: 104, name: 'Kiondo Basket', sku: 'KIONDO-01', image: `${IMAGE_BASE}/kiondo-basket.jpg` },
  { id: 105, name: 'Kenyan AA Coffee 500 g', sku: 'COF-AA-500', image: `${IMAGE_BASE}/coffee-aa-500.jpg` },
  { id: 106, name: 'Rooibos Tea 100 g', sku: 'TEA-RB-100', image: `${IMAGE_BASE}/rooibos-100.jpg` },
  { id: 107, name: 'Beaded Necklace', sku: 'BEAD-NCK-01', image: `${IMAGE_BASE}/beaded-necklace.jpg` },
  { id: 108, name: 'Beaded Bracelet', sku: 'BEAD-BRC-01', image: `${IMAGE_BASE}/beaded-bracelet.jpg` },
];

/** Case-insensitive substring match on the name or the SKU; an empty term matches the whole catalogue. */
export function searchProducts(term: string): ProductItem[] {
  const t = term.trim().toLowerCase();
  return PRODUCT_CATALOGUE.filter(
    (p) => t === '' || p.name.toLowerCase().includes(t) || p.sku.toLowerCase().includes(t),
  ).map((p) => ({ ...p }));
}
