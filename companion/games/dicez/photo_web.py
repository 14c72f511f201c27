"""POST /api/dice/read: a photo of the tray in, the dice the reader sees out (companion/dice_reader).

The answer is only a suggestion: the sheet fills its slots with it and the player confirms by scoring
as always. Also used by other programs (this folder's api.md).
"""
from __future__ import annotations

from flask import abort, jsonify, request

from companion.platform.sdk import Text, dice_reader

from .coach_web import bp

READS_PER_CLIENT = "20 per minute;300 per hour"  # a player takes one photo a roll
TOO_LARGE = Text("That photo is larger than 8 MB. Send a smaller one (the sheet scales it down before sending).")
NO_PHOTO = Text("Send the photo in the form field 'image'.")
WRONG_TYPE = Text("The dice reader takes JPEG, PNG or WebP photos.")


def read_dice_photo():
    sent = request.files.get("image")
    if sent is None:
        abort(400, NO_PHOTO)
    data = sent.read(dice_reader.MAX_BYTES + 1)
    if len(data) > dice_reader.MAX_BYTES:
        abort(413, TOO_LARGE)
    if not data:
        abort(400, "That photo is empty.")
    if dice_reader.image_format(data) is None and dice_reader.is_image(data):
        abort(415, WRONG_TYPE)
    try:
        reading = dice_reader.read_photo(data)
    except dice_reader.NotAnImage as problem:
        abort(400, str(problem))
    return jsonify(reading.as_json())


read_dice_photo.per_client_limit = READS_PER_CLIENT
read_dice_photo.limit_refusal = Text("Too many photos from this device just now. Wait a minute, then try again.")
read_dice_photo.body_limit = (dice_reader.MAX_BYTES + 64 * 1024, TOO_LARGE)  # room for the form around it
bp.add_url_rule("/api/dice/read", view_func=read_dice_photo, methods=["POST"])
