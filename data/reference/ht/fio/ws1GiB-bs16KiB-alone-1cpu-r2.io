rchar: 34127260615
wchar: 13662
syscr: 2083175
syscw: 5
read_bytes: 36864
write_bytes: 12288
cancelled_write_bytes: 0
