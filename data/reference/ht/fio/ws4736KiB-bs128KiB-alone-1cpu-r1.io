rchar: 79364336600
wchar: 13667
syscr: 605720
syscw: 5
read_bytes: 0
write_bytes: 8192
cancelled_write_bytes: 0
