rchar: 96123333568
wchar: 13666
syscr: 733581
syscw: 5
read_bytes: 36864
write_bytes: 8192
cancelled_write_bytes: 0
