"""Draws the web client's app icons (src/web_client/client/icon-192.png and icon-512.png): a white
card with a black king on the felt's green, inside the middle 80 % that a maskable icon keeps
whatever shape a phone cuts it to. Run it again after changing the drawing:

    python3 deploy/web-client-icons.py        # needs Pillow and Debian's fonts-dejavu
"""

from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

CLIENT = Path(__file__).resolve().parent.parent / "src" / "web_client" / "client"
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def icon(size):
    image = Image.new("RGB", (size, size), "#14432a")
    draw = ImageDraw.Draw(image)
    unit = size / 100
    # The card, inside the safe zone (a circle of 80 % of the side).
    draw.rounded_rectangle((30 * unit, 22 * unit, 70 * unit, 78 * unit), radius=6 * unit, fill="#ffffff",
                           outline="#0b2d1b", width=max(1, round(1.5 * unit)))
    font = ImageFont.truetype(FONT, round(38 * unit))
    draw.text((50 * unit, 51 * unit), "\u265a", font=font, fill="#1b1b1b", anchor="mm")
    return image


for size in (192, 512):
    icon(size).save(CLIENT / f"icon-{size}.png", optimize=True)
    print(f"wrote icon-{size}.png")
