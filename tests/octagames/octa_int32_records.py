"""Octa records saved by ``Game.to_bytes`` under the int32 record layout (octagames before
2026-12-06, commit b8d6a43), with the seed and the actions that lead to each: ``test_octa_record.py``
loads them under today's layout. Made by saving a random game of each rulebook (chance drawn with
``sample_chance``, each action drawn by ``numpy.random.default_rng(seed)`` among the legal ones); the
saved bytes are zlib-compressed, then base64."""

SAVED = {
    "octa-en": {
        "seed": 3,
        "actions": [
            55, 5, 2, 58, 42, 78, 19, 45, 25, 73, 8, 20, 12, 1, 29, 46, 64, 72, 24, 61, 51, 49, 50, 28,
            101, 94, 1, 27, 80, 1, 319, 792, 1044, 56, 93, 0, 293, 36, 57, 319, 838, 1062, 1048, 1034,
            41, 87, 0, 319, 717, 1057, 14, 102, 1, 319, 794, 1041, 53, 92, 0, 319, 1032, 1061, 47, 81,
            0, 319, 856, 1028, 1058, 40, 100, 1, 319, 724, 1046, 37, 103, 1, 326, 325, 327, 360, 1006,
            1066, 26, 89, 1, 319, 1032, 1042, 77, 85, 0, 368, 1004, 1050, 34, 86, 1, 319, 713, 1071, 52,
            90, 0, 319, 724, 1073, 74, 98, 1, 352, 353, 354, 360, 361, 1032, 1057, 23, 84, 0, 319, 1032,
            1056, 38, 88, 1, 319, 1016, 1042, 0, 91, 1, 319, 823, 1033, 17, 85, 0, 371, 365, 357, 356,
            358, 360, 367, 1032, 1038, 35, 99, 1, 374, 371, 319, 1032, 1073, 60, 87, 0, 300, 66, 69,
            319, 872, 1035, 54, 96, 0, 319, 823, 1070, 9, 92, 0, 319, 881, 1062, 48, 101, 0, 319, 872,
            1053, 21, 102, 1, 2, 319, 881, 1042, 16, 89, 1, 44, 44, 319, 1032, 1071, 76, 93, 0, 374,
            319, 712, 1053, 31, 94, 1, 373, 318, 370, 462, 319, 807, 1035, 6, 83, 0, 319, 1032, 1067, 7,
            97, 0, 369, 319, 1032, 1040, 18, 103, 0, 319, 925, 1054, 13, 82, 0, 317, 11, 10, 319, 823,
            1053, 79, 90, 0, 376, 319, 718, 370, 1059, 39, 86, 0, 333, 332, 334, 360, 362, 807, 1043,
            75, 95, 0, 375, 319, 1032, 1056, 32, 100, 0, 377, 319, 1032, 1073, 33, 81, 1, 319, 1032,
            1073, 63, 80, 1, 319, 825, 1073, 59, 91, 1, 319, 1032, 1066, 68, 101, 0, 44, 67, 319, 1032,
            1049, 70, 84, 1, 373, 319, 1032, 1039, 43, 89, 0, 319, 369, 935, 1045, 3, 96, 1, 319, 1032,
            1073, 4, 102, 0, 319, 462, 925, 1056, 71, 92, 0, 319, 1032, 1051, 15, 83, 1, 371, 319, 1032,
            1073, 62, 103, 1, 319, 1032, 1036, 30, 81, 0, 376, 319, 930, 1073, 22, 98, 1, 319, 1032,
            1073, 65, 85, 0, 319, 818, 1065, 42, 95, 1, 22, 57, 319, 728, 1029, 1055, 10, 97, 1, 318,
            319, 925, 1043, 51, 88, 1, 370, 319, 440, 1032, 1052, 52, 87, 1, 319, 807, 1072, 74, 90, 0,
            375
        ],
        "saved": (
            "eNrtl8dKBEEQhrsnuGYx55xzFtGTCmZYI0YwrOHoRXwO0ZMg+BZevXjQm2/g1Qfwrv/AP9A0Pbquzskp+OjZ7urq"
            "7pqqrtn41NqMFM5Z4vzAuXt8v2+6ertOrFw837y8CsgTcIEkFWw9sfmcAYbBJQc+IMIglvZbCrM4tO1jsRWGVgbY"
            "Udeylb0KzbaPo6xlBejYmi3LsDep2DOd058nDX40raOeIY24yrPptz7mBvTrfT+RATAIhji3gP1FbEu+ma++n17G"
            "lS/VoAZ0gi7QTf0s+sGlf/0zxEA64zATlNKfDseGabeQ/cWGd/JVXJazrxJUgXbQAWoVnR5Qxj0J6lUofm0A9TxH"
            "jDbVGKml/TqeXd2LTZ8YRcpv88ms/X9F/pENUwzJJOIpjL3LFM+ZjE6Msern6CRjtZ357+VCLvPMy79x0Mo6EMnP"
            "xA6IsTDWElrdkSGt4/AelLwfrZDyOovE2LohraOfT61TPaxnfaAftH3h0zyMjYJ8MMb6NED9adaEWTDH+tEIFpN8"
            "R/PQWwBNoBm0gDhri6/j+Sgb5ICRKF8jiSSSgP9ukSQnFu9Rv/VqwBE4BlvgBOyCZbAOtv/g3l2CjR2wBvbBKjgF"
            "h2APHIBNsJHiWulaPVW/HfS6KFL8XhEBtn4Tq7qOaf7DbeJsYrZ77BPmW1M3"
        ),
    },
    "octa-nl": {
        "seed": 5,
        "actions": [
            69, 72, 75, 19, 36, 41, 67, 0, 4, 8, 35, 33, 61, 18, 34, 37, 45, 76, 21, 27, 52, 14, 17, 2,
            90, 82, 1, 24, 101, 1, 296, 31, 848, 910, 928, 56, 81, 1, 927, 65, 80, 0, 297, 26, 854, 908,
            925, 932, 60, 85, 0, 435, 434, 433, 452, 866, 908, 919, 23, 98, 1, 875, 909, 44, 935, 59,
            96, 0, 915, 64, 103, 0, 893, 947, 32, 92, 0, 948, 62, 88, 1, 934, 43, 91, 0, 914, 55, 86, 1,
            915, 50, 95, 1, 929, 10, 102, 1, 2, 938, 47, 94, 1, 98, 88, 951, 12, 80, 0, 911, 71, 83, 1,
            877, 506, 921, 77, 103, 1, 882, 938, 15, 99, 0, 878, 930, 25, 85, 1, 936, 9, 92, 1, 885,
            506, 936, 40, 91, 1, 926, 78, 84, 0, 844, 909, 63, 931, 68, 82, 0, 948, 74, 101, 0, 350, 7,
            29, 918, 49, 93, 0, 923, 58, 86, 0, 925, 11, 94, 0, 410, 409, 408, 452, 920, 973, 46, 90, 0,
            291, 87, 94, 940, 20, 84, 1, 884, 911, 79, 91, 0, 860, 910, 945, 66, 88, 1, 894, 932, 3, 80,
            1
        ],
        "saved": (
            "eNrtV7tKA0EUndlsNmuMRuMzG8VXAopa+ACVaBGDRHygRUBBEcTKysYv8BP8AQv/QX/AwsofsBcLO+3jHTwDlyGb"
            "h3FTxBw47Nw7d+5jZu5ucpAvFqSwry6uz+27p6+H9O37/ePHazb39iKFEM/EsPiBkj08FULEEjAOWwGdKAOb+ZFM"
            "1nOKFvyG2LzNYnI7adhouoZeGH65fzMH1yeOGV/XX26t9FkvmU7X5DJfluGL2yk6OAtNxxg7FebCNbCT5W/W18/0"
            "XcRu4gDkQTan0IG1SpeCzkE9cWIEPhSG2bw+E52zze6eQpLJEbZHPPYQMYZxnOl7jbNW+ScM/8pPD+yihl8ex4Os"
            "cuhjNinjvicN2TNiCWMPqkP6ClVsq5v/EzSyK+XWygZzkQ3mJn9RY705R9CPCfT2NnEed3+TuEEcI+6hz1zcadVH"
            "aWIGfTlLnIOfPHwvom+y6JcccYW4TtxH7Bj6dYE4Spwm7uD9U2oxjLAzCjpWqElxrCa9fRzjmxUUdF0FGqvfPRPE"
            "SeJUhb2M4vu63IJ3to022mgdtH8l/s33QeOIdCcBvvfPyHeReEw8DCCOxf4TufAvfer224N675zWbWG8i+cqPWcw"
            "9mo8h0o53aydZpYurc9vehKQAg=="
        ),
    },
}
