rchar: 37937982432
wchar: 13660
syscr: 289662
syscw: 5
read_bytes: 40960
write_bytes: 12288
cancelled_write_bytes: 0
