rchar: 36301695915
wchar: 13662
syscr: 2215893
syscw: 5
read_bytes: 147456
write_bytes: 8192
cancelled_write_bytes: 0
