rchar: 28130347473
wchar: 5973
syscr: 214807
syscw: 3
read_bytes: 0
write_bytes: 36864
cancelled_write_bytes: 0
