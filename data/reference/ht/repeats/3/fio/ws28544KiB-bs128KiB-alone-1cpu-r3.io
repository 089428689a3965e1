rchar: 42252872715
wchar: 13659
syscr: 322583
syscw: 5
read_bytes: 0
write_bytes: 12288
cancelled_write_bytes: 0
