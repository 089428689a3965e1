rchar: 44379909092
wchar: 13662
syscr: 338810
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
