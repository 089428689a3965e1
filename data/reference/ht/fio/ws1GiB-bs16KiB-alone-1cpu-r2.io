rchar: 37462485998
wchar: 13663
syscr: 2286743
syscw: 5
read_bytes: 278528
write_bytes: 12288
cancelled_write_bytes: 0
