rchar: 50872298416
wchar: 13659
syscr: 388344
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
