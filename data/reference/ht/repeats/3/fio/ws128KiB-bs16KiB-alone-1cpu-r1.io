rchar: 65008544687
wchar: 13666
syscr: 3968020
syscw: 5
read_bytes: 32768
write_bytes: 12288
cancelled_write_bytes: 0
